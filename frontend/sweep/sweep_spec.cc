#include "frontend/sweep/sweep_spec.h"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <toml++/toml.h>

#include "frontend/convert/open_trace.h"
#include "configs/spec/gpu_config.h"
#include "parallel/engine_options.h"
#include "parallel/simulation.h"

namespace fs = std::filesystem;

namespace lockstep::sweep {
namespace {

// Reports errors as "FILE:LINE: what" for the node they are about.
class FileContext {
 public:
  explicit FileContext(fs::path file) : file_(std::move(file)) {}
  const fs::path& file() const { return file_; }
  fs::path folder() const { return file_.parent_path(); }

  [[noreturn]] void fail(const toml::source_region& at, const std::string& what) const {
    std::string where = file_.string();
    if (at.begin.line) {
      where += ':';
      where += std::to_string(at.begin.line);
    }
    throw SweepFileError(where + ": " + what);
  }
  [[noreturn]] void fail(const toml::node& at, const std::string& what) const { fail(at.source(), what); }

  void check_keys(const toml::table& table, std::initializer_list<std::string_view> known,
                  const std::string& prefix) const {
    for (auto&& [key, value] : table) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(key.source(), "unknown key '" + prefix + std::string(key.str()) + "' (expected " + list + ")");
    }
  }
  std::string string_of(const toml::node& node, const std::string& what) const {
    if (auto s = node.value<std::string>(); s && node.is_string()) return *s;
    fail(node, what + ": expected a string");
  }
  std::vector<std::pair<std::string, const toml::node*>> strings_of(const toml::node& node,
                                                                    const std::string& what) const {
    const toml::array* array = node.as_array();
    if (!array) fail(node, what + ": expected an array of strings");
    std::vector<std::pair<std::string, const toml::node*>> out;
    for (const toml::node& item : *array) out.emplace_back(string_of(item, what), &item);
    return out;
  }
  // A path of the file, relative to its folder.
  fs::path resolve(const std::string& path) const { return (folder() / path).lexically_normal(); }

 private:
  fs::path file_;
};

// Names become directory names: letters, digits, '_', '-', '.', '+'.
bool is_directory_name(const std::string& name, bool allow_plus) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || (allow_plus && c == '+');
  });
}

// vectoradd-sm80 for .../vectoradd-sm80, .../vectoradd-sm80/kernelslist.g and
// .../vectoradd-sm80/traces; the name before the first '.' for a file.
std::string trace_name_of(fs::path path) {
  if (path.filename() == "kernelslist.g" || path.filename() == "kernelslist") path = path.parent_path();
  if (fs::is_directory(path)) {
    if (path.filename() == "traces" && path.has_parent_path()) path = path.parent_path();
    return path.filename().string();
  }
  const std::string name = path.filename().string();
  return name.substr(0, name.find('.'));
}

std::vector<fs::path> expand(const FileContext& ctx, const toml::node& at, const std::string& pattern) {
  const fs::path full = ctx.resolve(pattern);
  if (pattern.find_first_of("*?[") == std::string::npos) {
    if (!fs::exists(full)) ctx.fail(at, "trace '" + pattern + "' not found (" + full.string() + ")");
    return {full};
  }
  glob_t matches{};
  const int rc = ::glob(full.c_str(), 0, nullptr, &matches);
  std::vector<fs::path> out;
  if (rc == 0)
    for (size_t i = 0; i < matches.gl_pathc; ++i) out.emplace_back(matches.gl_pathv[i]);
  ::globfree(&matches);
  if (out.empty()) ctx.fail(at, "trace pattern '" + pattern + "' matches nothing (" + full.string() + ")");
  return out;  // glob sorts its matches
}

void check_trace(const FileContext& ctx, const toml::node& at, const SweepTrace& trace) {
  try {
    auto source = open_trace(trace.path, [](const std::string&) {});
    if (source->manifest().kernels.empty()) ctx.fail(at, "trace '" + trace.name + "' has no kernels");
    if (trace.kernels.empty()) return;
    for (uint32_t id : parse_kernel_list(trace.kernels)) {
      const auto& kernels = source->manifest().kernels;
      if (std::none_of(kernels.begin(), kernels.end(), [&](const auto& k) { return k.kernel_id == id; }))
        ctx.fail(at, "trace '" + trace.name + "' has no kernel " + std::to_string(id) + " (kernels = \"" +
                         trace.kernels + "\")");
    }
  } catch (const SweepFileError&) {
    throw;
  } catch (const std::exception& e) {
    ctx.fail(at, "trace '" + trace.name + "': " + e.what());
  }
}

std::vector<SweepTrace> read_traces(const FileContext& ctx, const toml::table& root) {
  const toml::node* node = root.get("traces");
  if (!node) ctx.fail(toml::source_region{}, "no traces (add [[traces]] tables with a path)");
  const toml::array* array = node->as_array();
  if (!array || array->empty()) ctx.fail(*node, "traces: expected [[traces]] tables with a path");
  std::vector<SweepTrace> out;
  std::set<std::string> names;
  for (const toml::node& item : *array) {
    const toml::table* t = item.as_table();
    if (!t) ctx.fail(item, "traces: expected a table with a path");
    ctx.check_keys(*t, {"path", "name", "kernels"}, "traces.");
    const toml::node* path = t->get("path");
    if (!path) ctx.fail(item, "traces: a [[traces]] table without a path");
    const std::vector<fs::path> paths = expand(ctx, *path, ctx.string_of(*path, "traces.path"));
    std::string kernels;
    if (const toml::node* k = t->get("kernels"))
      kernels = k->is_integer() ? std::to_string(*k->value<int64_t>()) : ctx.string_of(*k, "traces.kernels");
    const toml::node* name = t->get("name");
    if (name && paths.size() > 1) ctx.fail(*name, "traces.name given for a pattern matching " +
                                                      std::to_string(paths.size()) + " traces");
    for (const fs::path& p : paths) {
      SweepTrace trace{name ? ctx.string_of(*name, "traces.name") : trace_name_of(p), p, kernels};
      if (!is_directory_name(trace.name, true))
        ctx.fail(name ? *name : *path, "trace name '" + trace.name +
                                           "' is not a plain directory name (letters, digits, _ - . +); set traces.name");
      if (!names.insert(trace.name).second)
        ctx.fail(name ? *name : *path, "two traces named '" + trace.name + "' (set traces.name to tell them apart)");
      check_trace(ctx, *path, trace);
      out.push_back(std::move(trace));
    }
  }
  return out;
}

std::vector<SweepGpu> read_gpus(const FileContext& ctx, const toml::table& root) {
  const toml::node* node = root.get("gpus");
  if (!node) ctx.fail(toml::source_region{}, "no gpus (add gpus = [\"QV100\", ...])");
  std::vector<SweepGpu> out;
  std::set<std::string> names;
  for (const auto& [text, at] : ctx.strings_of(*node, "gpus")) {
    SweepGpu gpu;
    gpu.is_file = text.find('/') != std::string::npos || text.ends_with(".cfg");
    gpu.config = gpu.is_file ? ctx.resolve(text).string() : text;
    gpu.name = gpu.is_file ? fs::path(text).stem().string() : text;
    try {
      load_gpu_spec(gpu.config);
    } catch (const std::exception& e) {
      ctx.fail(*at, "GPU '" + text + "': " + e.what());
    }
    if (!is_directory_name(gpu.name, true)) ctx.fail(*at, "GPU config name '" + gpu.name + "' is not a plain name");
    if (!names.insert(gpu.name).second) ctx.fail(*at, "GPU config '" + gpu.name + "' listed twice");
    out.push_back(std::move(gpu));
  }
  if (out.empty()) ctx.fail(*node, "gpus: empty list");
  return out;
}

std::vector<SweepOverride> read_overrides(const FileContext& ctx, const toml::table& root,
                                          const std::vector<SweepGpu>& gpus) {
  // The named groups.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  const toml::node* sets = root.get("sets");
  if (sets) {
    const toml::table* table = sets->as_table();
    if (!table) ctx.fail(*sets, "sets: expected a table of named groups ([sets] name = [\"key=value\", ...])");
    for (auto&& [key, value] : *table) {
      const std::string name(key.str());
      if (!is_directory_name(name, false))
        ctx.fail(key.source(), "set group name '" + name + "': use letters, digits, _ - . (no '+')");
      std::vector<std::string> values;
      for (const auto& [kv, at] : ctx.strings_of(value, "sets." + name)) {
        if (kv.find('=') == std::string::npos) ctx.fail(*at, "sets." + name + ": '" + kv + "' is not key=value");
        values.push_back(kv);
      }
      groups.emplace_back(name, std::move(values));
    }
  }
  const toml::node* list = root.get("overrides");
  if (!list) {
    if (!groups.empty()) ctx.fail(*sets, "[sets] given without overrides = [...] naming the points to run");
    return {SweepOverride{"default", {}}};
  }
  std::vector<SweepOverride> out;
  std::set<std::string> names;
  for (const auto& [text, at] : ctx.strings_of(*list, "overrides")) {
    SweepOverride o{text, {}};
    size_t pos = 0;
    while (pos <= text.size()) {
      const size_t plus = std::min(text.find('+', pos), text.size());
      const std::string part = text.substr(pos, plus - pos);
      auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == part; });
      if (group == groups.end()) {
        std::string known;
        for (const auto& g : groups) known += (known.empty() ? "" : ", ") + g.first;
        ctx.fail(*at, "override '" + text + "': no set group '" + part + "' in [sets] (groups: " +
                          (known.empty() ? "none" : known) + ")");
      }
      o.sets.insert(o.sets.end(), group->second.begin(), group->second.end());
      pos = plus + 1;
    }
    if (!names.insert(o.name).second) ctx.fail(*at, "override '" + o.name + "' listed twice");
    for (const SweepGpu& gpu : gpus) {
      try {
        load_gpu_spec(gpu.config, o.sets);
      } catch (const std::exception& e) {
        ctx.fail(*at, "override '" + o.name + "' on GPU '" + gpu.name + "': " + e.what());
      }
    }
    out.push_back(std::move(o));
  }
  if (out.empty()) ctx.fail(*list, "overrides: empty list");
  return out;
}

}  // namespace

SweepSpec load_sweep_file(const fs::path& file, const std::optional<fs::path>& output) {
  SweepSpec spec;
  spec.file = fs::absolute(file).lexically_normal();
  const FileContext ctx(spec.file);
  if (!fs::is_regular_file(spec.file)) throw SweepFileError(file.string() + ": no such sweep file");
  toml::table root;
  try {
    root = toml::parse_file(spec.file.string());
  } catch (const toml::parse_error& e) {
    ctx.fail(e.source(), std::string(e.description()));
  }
  ctx.check_keys(root, {"output", "threads", "schedule", "gpus", "overrides", "sets", "traces"}, "");

  if (output) {
    spec.output = fs::absolute(*output).lexically_normal();
  } else if (const toml::node* o = root.get("output")) {
    spec.output = ctx.resolve(ctx.string_of(*o, "output"));
  } else {
    ctx.fail(toml::source_region{}, "no output directory (set output = \"DIR\" or give --out DIR)");
  }
  if (const toml::node* t = root.get("threads")) {
    const std::optional<int64_t> v = t->is_integer() ? t->value<int64_t>() : std::nullopt;
    if (!v || *v < 1 || *v > 1024) ctx.fail(*t, "threads: expected a whole number from 1 to 1024");
    spec.threads = uint32_t(*v);
  }
  spec.schedule = spec.threads > 1 ? "para1" : "seq";
  if (const toml::node* s = root.get("schedule")) {
    spec.schedule = ctx.string_of(*s, "schedule");
    try {
      parse_schedule(spec.schedule);
    } catch (const std::exception& e) {
      ctx.fail(*s, std::string("schedule: ") + e.what());
    }
  }
  spec.traces = read_traces(ctx, root);
  spec.gpus = read_gpus(ctx, root);
  spec.overrides = read_overrides(ctx, root, spec.gpus);
  return spec;
}

}  // namespace lockstep::sweep
