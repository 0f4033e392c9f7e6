#include "configs/spec/gpu_config.h"

#include <algorithm>
#include <boost/program_options/errors.hpp>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/parsers.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "configs/spec/config_dir.h"
#include "configs/spec/config_schema.h"


namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace lockstep {
namespace {

using config::ConfigKey;
using config::ConfigSchema;

// One "key = value" as written, with where it came from.
struct Entry {
  std::string key;
  std::string value;
  std::string origin;  // a file path, or "--set"
};

// "path: key: reason" for a file, "--set key: reason" for an override.
[[noreturn]] void error_at(const std::string& origin, const std::string& what) {
  throw ConfigError(origin == "--set" ? "--set " + what : origin + ": " + what);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string() + ": cannot read the config file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// " (did you mean dram.tCCD?)" when the key differs from a known one only in case.
std::string spelling_hint(const ConfigSchema& schema, const std::string& key) {
  for (const ConfigKey& known : schema.keys())
    if (config::iequals(known.name, key)) return " (did you mean " + known.name + "?)";
  return "";
}

// Parses one config file with Boost.Program_options. Sections give
// "section.key" names. Without a schema every key is accepted (pass 1);
// with one, a key it does not know is an error (pass 2).
std::vector<Entry> parse_file(const fs::path& path, const std::string& text, const ConfigSchema* schema) {
  po::options_description description;
  if (schema)
    for (const ConfigKey& key : schema->keys()) description.add_options()(key.name.c_str(), po::value<std::string>());
  std::istringstream in(text);
  po::parsed_options parsed(&description);
  try {
    parsed = po::parse_config_file(in, description, /*allow_unregistered=*/schema == nullptr);
  } catch (const po::unknown_option& e) {
    const std::string key = e.get_option_name();
    std::string hint = schema ? spelling_hint(*schema, key) : std::string();
    if (hint.empty() && key.rfind("unit.", 0) == 0) hint = " (a [unit.NAME] section needs NAME in sm.units)";
    error_at(path.string(), key + ": unknown key" + hint);
  } catch (const po::error& e) {
    error_at(path.string(), e.what());
  }
  std::vector<Entry> entries;
  std::set<std::string> seen;
  for (const po::option& option : parsed.options) {
    Entry e{option.string_key, option.value.empty() ? std::string() : option.value.front(), path.string()};
    if (schema) {
      const ConfigKey* key = schema->find(e.key);
      if (key && !key->repeatable && !seen.insert(e.key).second) error_at(e.origin, e.key + ": set twice in one file");
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

Entry parse_override(const std::string& text) {
  const size_t eq = text.find('=');
  std::string key = text.substr(0, eq);
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
  while (!key.empty() && (key.front() == ' ' || key.front() == '\t')) key.erase(key.begin());
  if (eq == std::string::npos || key.empty()) error_at("--set", text + ": expected key=value");
  return Entry{key, text.substr(eq + 1), "--set"};
}

// The unit classes the final spec declares: the last sm.units written wins.
std::vector<std::string> unit_classes(const std::vector<Entry>& entries) {
  std::vector<std::string> names;
  for (const Entry& e : entries) {
    if (e.key != "sm.units") continue;
    try {
      names = config::parse_name_list(e.value);
    } catch (const std::invalid_argument& ex) {
      error_at(e.origin, e.key + ": " + ex.what());
    }
    std::set<std::string> unique;
    for (const std::string& name : names)
      if (!unique.insert(name).second)
        error_at(e.origin, "sm.units = " + e.value + ": unit class '" + name + "' declared twice");
  }
  return names;
}

// Whether message names key as a whole word (dram.tRC is not named by dram.tRCD).
bool mentions(const std::string& message, const std::string& key) {
  for (size_t pos = message.find(key); pos != std::string::npos; pos = message.find(key, pos + 1)) {
    const size_t end = pos + key.size();
    const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
    if ((pos == 0 || !word(message[pos - 1])) && (end == message.size() || !word(message[end]))) return true;
  }
  return false;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return s;
}

double peak_dram_gbps(const GpuSpec& spec) {
  const DramSpec& d = spec.memory.dram;
  return double(d.channels) * d.bus_width_bits / 8.0 * d.data_rate * spec.clocks.dram_mhz / 1000.0;
}

}  // namespace

fs::path config_dir() { return default_config_dir(); }

std::vector<fs::path> shipped_gpu_configs() {
  std::vector<fs::path> out;
  const fs::path dir = config_dir() / "gpus";
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".cfg") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

fs::path find_gpu_config(const std::string& name) {
  const std::vector<fs::path> shipped = shipped_gpu_configs();
  std::string names;
  for (const fs::path& p : shipped) {
    if (config::iequals(p.stem().string(), name)) return p;
    if (!names.empty()) names += ", ";
    names += p.stem().string();
  }
  if (shipped.empty())
    throw ConfigError("unknown GPU '" + name + "': no configs in " + (config_dir() / "gpus").string() +
                      " (set LOCKSTEP_CONFIG_DIR)");
  throw ConfigError("unknown GPU '" + name + "' (shipped: " + names + "; or give a .cfg path)");
}

namespace {

fs::path gpu_config_path(const std::string& gpu_or_path) {
  const bool is_path = gpu_or_path.find('/') != std::string::npos ||
                       (gpu_or_path.size() > 4 && lower(gpu_or_path.substr(gpu_or_path.size() - 4)) == ".cfg");
  if (is_path) return gpu_or_path;
  // A shipped GPU's name first; a plain file name only when no GPU has that name.
  for (const fs::path& p : shipped_gpu_configs())
    if (config::iequals(p.stem().string(), gpu_or_path)) return p;
  std::error_code ec;
  if (fs::is_regular_file(gpu_or_path, ec)) return gpu_or_path;
  return find_gpu_config(gpu_or_path);  // throws: unknown GPU
}

// Keys a --set changed, over the values the files gave: a --set of
// sm.max_warps alone brings sm.max_threads down with it.
void follow_dependent_keys(GpuSpec& spec, const std::set<std::string>& set_keys) {
  if (set_keys.count("sm.max_warps") && !set_keys.count("sm.max_threads") &&
      uint64_t(spec.sm.max_warps) * 32 < spec.sm.max_threads)
    spec.sm.max_threads = spec.sm.max_warps * 32;
}

}  // namespace

GpuSpec load_gpu_spec(const std::string& gpu_or_path, const std::vector<std::string>& overrides) {
  return load_gpu_spec_files({gpu_config_path(gpu_or_path)}, overrides);
}

GpuSpec load_gpu_spec_layered(const std::string& gpu, const std::vector<std::string>& config_files,
                              const std::vector<std::string>& overrides) {
  std::vector<fs::path> files;
  if (!gpu.empty()) files.push_back(gpu_config_path(gpu));
  for (const std::string& f : config_files) files.emplace_back(f);
  if (files.empty()) throw ConfigError("no GPU config: give --gpu NAME or --config FILE");
  return load_gpu_spec_files(files, overrides);
}

GpuSpec load_gpu_spec_files(const std::vector<fs::path>& files, const std::vector<std::string>& overrides) {
  // Pass 1: every file with unregistered keys allowed, plus the overrides,
  // only to learn the unit classes (sm.units) the spec will declare.
  std::vector<std::string> texts;
  std::vector<Entry> all;
  for (const fs::path& path : files) {
    texts.push_back(read_file(path));
    for (Entry& e : parse_file(path, texts.back(), nullptr)) all.push_back(std::move(e));
  }
  std::vector<Entry> set_entries;
  for (const std::string& text : overrides) set_entries.push_back(parse_override(text));
  for (const Entry& e : set_entries) all.push_back(e);
  const std::vector<std::string> units = unit_classes(all);

  // Pass 2: the schema with unit.<NAME>.* registered; parse strictly.
  const ConfigSchema schema(units);
  std::vector<Entry> entries;
  for (size_t i = 0; i < files.size(); ++i)
    for (Entry& e : parse_file(files[i], texts[i], &schema)) entries.push_back(std::move(e));
  for (const Entry& e : set_entries) {
    if (!schema.find(e.key)) {
      std::string hint = spelling_hint(schema, e.key);
      if (hint.empty() && e.key.rfind("unit.", 0) == 0) hint = " (declare the unit class in sm.units first)";
      error_at(e.origin, e.key + ": unknown key" + hint);
    }
    entries.push_back(e);
  }

  GpuSpec spec;
  for (const std::string& name : units) spec.sm.units.push_back(UnitSpec{name});
  std::map<std::string, size_t> last_set;  // key -> index of the entry that gave its effective value
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    last_set[e.key] = i;
    if (e.key == "sm.units") continue;  // already applied: the unit classes come from the last one
    try {
      schema.find(e.key)->set(spec, e.value);
    } catch (const std::invalid_argument& ex) {
      error_at(e.origin, e.key + ": " + ex.what());
    }
  }
  if (!last_set.count("gpu.name") && !files.empty()) spec.name = files.front().stem().string();
  std::set<std::string> set_keys;
  for (const Entry& e : set_entries) set_keys.insert(e.key);
  follow_dependent_keys(spec, set_keys);

  try {
    spec.validate();
  } catch (const std::invalid_argument& ex) {
    // The message names the key first ("sm.max_threads = 2048: more than sm.max_warps * 32 = ...");
    // blame whichever of the keys it mentions was set last (a file, or --set).
    const std::string message = ex.what();
    std::string where = files.empty() ? "--set" : files.back().string();
    size_t latest = 0;
    bool found = false;
    for (const auto& [key, index] : last_set)
      if (mentions(message, key) && (!found || index > latest)) {
        latest = index;
        found = true;
        where = entries[index].origin;
      }
    if (where != "--set") throw ConfigError(where + ": " + message);
    // A --set made it impossible: name that key and the file keys it conflicts with.
    const Entry& culprit = entries[latest];
    std::string others;
    for (const auto& [key, index] : last_set)
      if (entries[index].origin != "--set" && mentions(message, key))
        others += (others.empty() ? "" : ", ") + key + " = " + entries[index].value + " from " + entries[index].origin;
    if (others.empty()) throw ConfigError("--set " + message);
    throw ConfigError("--set " + culprit.key + "=" + culprit.value + " conflicts with " + others + ": " + message +
                      " (--set " + std::string(others.find(", ") == std::string::npos ? "it" : "them") + " too)");
  }
  return spec;
}

std::string gpu_spec_value(const GpuSpec& spec, const std::string& key) {
  std::vector<std::string> units;
  for (const UnitSpec& u : spec.sm.units) units.push_back(u.name);
  const ConfigSchema schema(units);
  const ConfigKey* k = schema.find(key);
  if (!k) throw ConfigError("unknown config key '" + key + "' (lockstep config --keys lists them)");
  return k->get(spec);
}

std::string dump_gpu_spec(const GpuSpec& spec) {
  std::vector<std::string> units;
  for (const UnitSpec& u : spec.sm.units) units.push_back(u.name);
  const ConfigSchema schema(units);
  std::string out = "# lockstep GPU config " + spec.name + ": every key with its effective value\n";
  if (!spec.description.empty()) out += "# " + spec.description + "\n";
  std::string section;
  for (const ConfigKey& key : schema.keys()) {
    if (key.section() != section) {
      section = key.section();
      out += "\n[" + section + "]\n";
    }
    out += "# " + key.description + " (" + key.type + "; default " +
           (key.default_value.empty() ? "empty" : key.default_value) + ")\n";
    out += key.leaf() + " = " + key.get(spec) + "\n";
  }
  return out;
}

std::string config_keys_markdown() {
  const ConfigSchema schema({"NAME"});
  std::string out = "| Key | Type | Default | Description |\n|---|---|---|---|\n";
  for (const ConfigKey& key : schema.keys()) {
    std::string type = key.type;
    for (size_t pos = 0; (pos = type.find('|', pos)) != std::string::npos; pos += 2) type.replace(pos, 1, "\\|");
    out += "| `" + key.name + "` | " + type + " | " + (key.default_value.empty() ? "" : "`" + key.default_value + "`") +
           " | " + key.description + " |\n";
  }
  return out;
}

std::string gpu_spec_summary(const GpuSpec& spec) {
  const SmSpec& sm = spec.sm;
  const MemorySpec& m = spec.memory;
  std::string units;
  for (const UnitSpec& u : sm.units) {
    if (!units.empty()) units += ",";
    units += u.name;
  }
  const uint64_t l1_max =
      m.l1d.adaptive ? uint64_t(sm.unified_l1_shared_kb - sm.shared_carveouts_kb.front()) : m.l1d.base_bytes() / 1024;
  const uint64_t l1_min =
      m.l1d.adaptive ? uint64_t(sm.unified_l1_shared_kb - sm.shared_carveouts_kb.back()) : m.l1d.base_bytes() / 1024;
  const std::string l1 =
      l1_min == l1_max ? std::to_string(l1_max) : std::to_string(l1_min) + "-" + std::to_string(l1_max);
  std::string dram = dram_type_name(m.dram.type);
  for (char& c : dram) c = char(std::toupper(static_cast<unsigned char>(c)));
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "%s: %u SMs at %s MHz, %u warps x %u sub-cores (%s), L1D %s KB, L2 %.1f MB in %u slices, "
                "%s %u x %u-bit at %s MHz = %.0f GB/s",
                spec.name.c_str(), spec.sms, config::format_double(spec.clocks.core_mhz).c_str(), sm.max_warps,
                sm.subcores, units.c_str(), l1.c_str(), double(m.l2_bytes()) / (1024.0 * 1024.0), m.l2_slices(),
                dram.c_str(), m.dram.channels, m.dram.bus_width_bits,
                config::format_double(spec.clocks.dram_mhz).c_str(), peak_dram_gbps(spec));
  return buf;
}

}  // namespace lockstep
