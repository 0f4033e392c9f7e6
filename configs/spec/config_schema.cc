#include "configs/spec/config_schema.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "configs/spec/spec_check.h"
#include "configs/spec/spec_keys.h"

namespace lockstep::config {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad(std::string_view text, const char* what) {
  throw std::invalid_argument("'" + std::string(text) + "' is not " + what);
}

template <class T>
T parse_unsigned(std::string_view text, const char* what) {
  const std::string_view s = trim(text);
  if (s.empty()) bad(text, what);
  for (char c : s)
    if (c < '0' || c > '9') bad(text, what);
  T value{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range) bad(text, std::string(what).append(" in range").c_str());
  if (ec != std::errc() || end != s.data() + s.size()) bad(text, what);
  return value;
}

}  // namespace

uint32_t parse_uint32(std::string_view text) { return parse_unsigned<uint32_t>(text, "an unsigned integer"); }
uint64_t parse_uint64(std::string_view text) { return parse_unsigned<uint64_t>(text, "an unsigned integer"); }

double parse_double(std::string_view text) {
  const std::string_view s = trim(text);
  double value = 0;
  if (s.empty() || s.front() == '+') bad(text, "a number");
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) bad(text, "a number");
  return value;
}

bool parse_bool(std::string_view text) {
  const std::string_view s = trim(text);
  for (const char* t : {"true", "yes", "on", "1"})
    if (iequals(s, t)) return true;
  for (const char* f : {"false", "no", "off", "0"})
    if (iequals(s, f)) return false;
  bad(text, "a bool (true/false, yes/no, on/off, 1/0)");
}

std::string parse_text(std::string_view text) {
  const std::string_view s = trim(text);
  for (char c : s)
    if (c == '#' || c == '\n' || c == '\r')
      throw std::invalid_argument("'" + std::string(text) +
                                  "' has a '#' or a line break, which a config file cannot hold");
  return std::string(s);
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = parse_text(text.substr(pos, comma - pos));
    if (!item.empty()) out.push_back(item);
    pos = comma + 1;
  }
  return out;
}

std::vector<uint32_t> parse_uint_list(std::string_view text) {
  std::vector<uint32_t> out;
  for (const std::string& item : split_list(text)) {
    try {
      out.push_back(parse_uint32(item));
    } catch (const std::invalid_argument&) {
      bad(text, "a comma-separated list of unsigned integers");
    }
  }
  return out;
}

std::vector<std::string> parse_name_list(std::string_view text) {
  std::vector<std::string> out = split_list(text);
  for (const std::string& name : out)
    for (char c : name)
      if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
        bad(text, "a comma-separated list of names (letters, digits, _)");
  return out;
}

std::string format_double(double value) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

std::string detail::show(const std::vector<uint32_t>& values) {
  std::string out;
  for (uint32_t v : values) {
    if (!out.empty()) out += ",";
    out += std::to_string(v);
  }
  return out;
}

ConfigSchema::ConfigSchema(const std::vector<std::string>& unit_names) {
  for (const std::string& name : unit_names) defaults_.sm.units.push_back(UnitSpec{name});
  register_every_key(*this, unit_names);
}

const ConfigKey* ConfigSchema::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &keys_[it->second];
}

void ConfigSchema::add(ConfigKey key) {
  if (index_.count(key.name)) throw std::logic_error("config key registered twice: " + key.name);
  if (key.name.find('.') == std::string::npos) throw std::logic_error("config key without a section: " + key.name);
  // Unit keys read a spec that declares their class; every other key a plain default GpuSpec.
  key.default_value = key.get(key.name.rfind("unit.", 0) == 0 ? defaults_ : GpuSpec{});
  index_.emplace(key.name, keys_.size());
  keys_.push_back(std::move(key));
}

}  // namespace lockstep::config
