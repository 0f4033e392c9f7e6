#include "frontend/isa/isa_def.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

constexpr std::array<std::pair<std::string_view, InstKind>, 9> kKindNames = {{
    {"alu", InstKind::kAlu},
    {"branch", InstKind::kBranch},
    {"memory", InstKind::kMemory},
    {"barrier", InstKind::kBarrier},
    {"membar", InstKind::kMemBarrier},
    {"exit", InstKind::kExit},
    {"depbar", InstKind::kDepBar},
    {"ldgdepbar", InstKind::kLdgDepBar},
    {"nop", InstKind::kNop},
}};

std::string kind_list() {
  std::string s;
  for (const auto& [name, kind] : kKindNames) {
    if (!s.empty()) s += ", ";
    s += name;
  }
  return s;
}

std::string_view trim_ws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Upper-case letters, digits and '_', in '.'-separated parts; starts with a letter.
bool valid_opcode(std::string_view s) {
  if (s.empty() || !is_upper(s.front()) || s.back() == '.') return false;
  char prev = 0;
  for (char c : s) {
    if (c == '.') {
      if (prev == '.') return false;
    } else if (!is_upper(c) && !is_digit(c) && c != '_') {
      return false;
    }
    prev = c;
  }
  return true;
}

// A unit class name as a config declares it: a letter, then letters, digits or '_'.
bool valid_unit(std::string_view s) {
  if (s.empty() || !(is_upper(s.front()) || is_lower(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_upper(c) || is_lower(c) || is_digit(c) || c == '_'; });
}

std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// 80 for ".../sm_80.isa", 0 for any other name.
uint32_t sm_from_file_name(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (!name.starts_with("sm_") || !name.ends_with(".isa")) return 0;
  const std::string_view digits = std::string_view(name).substr(3, name.size() - 3 - 4);
  if (digits.empty() || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), is_digit)) return 0;
  return uint32_t(std::stoul(std::string(digits)));
}

std::filesystem::path isa_file(const std::filesystem::path& isa_dir, uint32_t sm) {
  return isa_dir / ("sm_" + std::to_string(sm) + ".isa");
}

}  // namespace

std::optional<InstKind> inst_kind_from_name(std::string_view name) {
  for (const auto& [kind_name, kind] : kKindNames) {
    if (kind_name.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) {
      const char c = is_upper(name[i]) ? char(name[i] - 'A' + 'a') : name[i];
      same = c == kind_name[i];
    }
    if (same) return kind;
  }
  return std::nullopt;
}

IsaDef IsaDef::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TraceError(file.string() + ": cannot open ISA def");
  IsaDef def;
  def.file_ = file;
  def.sm_ = sm_from_file_name(file);
  std::unordered_map<std::string, uint64_t> first_line;
  std::string raw;
  uint64_t line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string where = file.string() + ":" + std::to_string(line_no) + ": ";
    std::string_view line = raw;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim_ws(line);
    if (line.empty()) continue;
    const std::vector<std::string_view> f = split_ws(line);
    if (f.size() != 3)
      throw TraceError(where + "expected 'OPCODE UNIT KIND', got " + std::to_string(f.size()) + " field" +
                       (f.size() == 1 ? "" : "s") + " in '" + std::string(line) + "'");
    if (!valid_opcode(f[0]))
      throw TraceError(where + "bad opcode '" + std::string(f[0]) +
                       "' (upper-case letters, digits and '_', parts separated by '.')");
    if (!valid_unit(f[1]))
      throw TraceError(where + "bad unit name '" + std::string(f[1]) + "' (a letter, then letters, digits or '_')");
    const std::optional<InstKind> kind = inst_kind_from_name(f[2]);
    if (!kind) throw TraceError(where + "unknown kind '" + std::string(f[2]) + "' (one of " + kind_list() + ")");
    const std::string opcode(f[0]);
    if (auto it = first_line.find(opcode); it != first_line.end())
      throw TraceError(where + "opcode '" + opcode + "' already defined at line " + std::to_string(it->second));
    first_line.emplace(opcode, line_no);
    def.entries_.emplace(opcode, Entry{std::string(f[1]), *kind});
  }
  if (in.bad()) throw TraceError(file.string() + ": read error");
  if (def.entries_.empty()) throw TraceError(file.string() + ": no opcode entries");
  return def;
}

IsaDef IsaDef::for_binary_version(uint32_t sm, const std::filesystem::path& config_dir) {
  const std::filesystem::path dir = config_dir / "isa";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw TraceError("no ISA defs: " + dir.string() + " is not a directory (set LOCKSTEP_CONFIG_DIR?)");
  const uint32_t lowest = sm / 10 * 10;
  for (uint32_t v = sm + 1; v-- > lowest;) {
    const std::filesystem::path file = isa_file(dir, v);
    if (std::filesystem::is_regular_file(file, ec)) {
      IsaDef def = load(file);
      def.sm_ = sm;
      return def;
    }
  }
  std::set<uint32_t> available;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (const uint32_t v = sm_from_file_name(e.path())) available.insert(v);
  std::string list;
  for (uint32_t v : available) list += (list.empty() ? "" : ", ") + ("sm_" + std::to_string(v));
  throw TraceError("no ISA def for sm_" + std::to_string(sm) + ": " + isa_file(dir, sm).string() +
                   " does not exist and there is no lower sm_" + std::to_string(sm / 10) +
                   "x file of the same generation (available: " + (list.empty() ? "none" : list) + ")");
}

void IsaDef::add_extra(std::string_view spec) {
  const std::string_view whole = spec;
  if (trim_ws(spec).empty()) throw TraceError("isa.extra: empty value (expected OPC:UNIT or OPC:UNIT:KIND)");
  std::vector<std::pair<std::string, Entry>> parsed;  // applied only if the whole spec is valid
  while (true) {
    const size_t comma = spec.find(',');
    const std::string_view item = trim_ws(spec.substr(0, comma));
    const std::string prefix = "isa.extra: bad entry '" + std::string(item) + "' in '" + std::string(whole) + "': ";
    std::vector<std::string_view> parts;
    for (std::string_view rest = item;;) {
      const size_t colon = rest.find(':');
      parts.push_back(trim_ws(rest.substr(0, colon)));
      if (colon == std::string_view::npos) break;
      rest = rest.substr(colon + 1);
    }
    if (parts.size() < 2 || parts.size() > 3)
      throw TraceError(prefix + "expected OPC:UNIT or OPC:UNIT:KIND");
    std::string opcode(parts[0]);
    for (char& c : opcode)
      if (is_lower(c)) c = char(c - 'a' + 'A');
    if (!valid_opcode(opcode))
      throw TraceError(prefix + "bad opcode '" + std::string(parts[0]) + "' (letters, digits and '_', parts separated by '.')");
    if (!valid_unit(parts[1]))
      throw TraceError(prefix + "bad unit name '" + std::string(parts[1]) + "' (a letter, then letters, digits or '_')");
    InstKind kind = InstKind::kAlu;
    if (parts.size() == 3) {
      const std::optional<InstKind> k = inst_kind_from_name(parts[2]);
      if (!k) throw TraceError(prefix + "unknown kind '" + std::string(parts[2]) + "' (one of " + kind_list() + ")");
      kind = *k;
    }
    parsed.emplace_back(std::move(opcode), Entry{std::string(parts[1]), kind});
    if (comma == std::string_view::npos) break;
    spec = spec.substr(comma + 1);
  }
  for (auto& [opcode, entry] : parsed) entries_[opcode] = std::move(entry);
}

const IsaDef::Entry* IsaDef::find(std::string_view opcode) const {
  while (!opcode.empty()) {
    if (auto it = entries_.find(opcode); it != entries_.end()) return &it->second;
    const size_t dot = opcode.rfind('.');
    if (dot == std::string_view::npos) break;
    opcode = opcode.substr(0, dot);
  }
  return nullptr;
}

IsaDef::Entry IsaDef::resolve(std::string_view opcode, const std::string& where) const {
  if (const Entry* e = find(opcode)) return *e;
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  std::ostringstream msg;
  if (!where.empty()) msg << where << ": ";
  msg << "unknown opcode '" << opcode << "'";
  if (sm_) msg << " for sm_" << sm_;
  msg << " (";
  if (!file_.empty()) msg << "add it to " << file_.string() << " or ";
  msg << "pass --set isa.extra=" << (base.empty() ? std::string_view("OPC") : base) << ":UNIT)";
  throw TraceError(msg.str());
}

std::vector<std::string> IsaDef::unit_names() const {
  std::set<std::string> names;
  for (const auto& [opcode, entry] : entries_) names.insert(entry.unit);
  return {names.begin(), names.end()};
}

}  // namespace lockstep
