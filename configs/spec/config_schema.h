#pragma once
// Every key a GPU config may set: its name ("section.key"), how its value is
// written, a one-line description, its default, and typed accessors into a
// GpuSpec. Each spec registers its keys in its own <block>_keys.cc, listed
// explicitly in spec_keys.cc (nothing registers itself); range and
// cross-field checks live in the specs' validate().
#include "configs/spec/spec_check.h"
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "configs/spec/gpu_spec.h"

namespace lockstep::config {

struct ConfigKey {
  std::string name;           // "sm.max_warps", "unit.SP.latency"
  std::string type;           // how the value is written: "uint", "MHz", "bool", "lrr|gto|two_level", ...
  std::string description;    // one line
  std::string default_value;  // the value a default-constructed GpuSpec (or UnitSpec) has
  bool repeatable = false;    // each occurrence appends comma-separated items; an empty value clears
  std::function<void(GpuSpec&, std::string_view)> set;  // parses and stores; throws std::invalid_argument
  std::function<std::string(const GpuSpec&)> get;       // the value as a config file writes it

  std::string section() const { return name.substr(0, name.rfind('.')); }
  std::string leaf() const { return name.substr(name.rfind('.') + 1); }
};

// Value parsers shared by the keys; each throws std::invalid_argument("'x' is not ...").
uint32_t parse_uint32(std::string_view text);
uint64_t parse_uint64(std::string_view text);
double parse_double(std::string_view text);
bool parse_bool(std::string_view text);
std::string parse_text(std::string_view text);
std::vector<uint32_t> parse_uint_list(std::string_view text);
std::vector<std::string> parse_name_list(std::string_view text);
std::vector<std::string> split_list(std::string_view text);  // comma-separated, trimmed, empty items dropped
std::string format_double(double value);
using spec::iequals;

// An accessor for ConfigSchema::field: the field a chain of member pointers
// reaches from a GpuSpec, e.g. member(&GpuSpec::sm, &SmSpec::max_warps).
template <class... Members>
auto member(Members... path) {
  return [=](auto& spec) -> auto& { return (spec.*....*path); };  // ((spec.*a).*b).*c
}

class ConfigSchema {
 public:
  // The keys of a GPU whose SM declares these unit classes (sm.units); each
  // gets unit.<NAME>.per_subcore / latency / initiation.
  explicit ConfigSchema(const std::vector<std::string>& unit_names = {});

  const std::vector<ConfigKey>& keys() const { return keys_; }
  const ConfigKey* find(std::string_view name) const;

  // Registration. Throws std::logic_error when a name is registered twice.
  void add(ConfigKey key);

  // A key bound to the field `access(spec)` returns (a generic lambda taking
  // GpuSpec& or const GpuSpec&); the parser and printer follow the field type.
  template <class Access>
  void field(std::string name, Access access, std::string description, std::string type = {});

  template <class Access, class Enum>
  void enumeration(std::string name, Access access, std::string description, std::vector<Enum> values,
                   const char* (*value_name)(Enum));

 private:
  GpuSpec defaults_;  // the default spec with the schema's unit classes declared (for unit.* defaults)
  std::vector<ConfigKey> keys_;
  std::map<std::string, size_t, std::less<>> index_;
};

namespace detail {
inline void store(uint32_t& f, std::string_view v) { f = parse_uint32(v); }
inline void store(uint64_t& f, std::string_view v) { f = parse_uint64(v); }
inline void store(double& f, std::string_view v) { f = parse_double(v); }
inline void store(bool& f, std::string_view v) { f = parse_bool(v); }
inline void store(std::string& f, std::string_view v) { f = parse_text(v); }
inline void store(std::vector<uint32_t>& f, std::string_view v) { f = parse_uint_list(v); }
inline std::string show(uint32_t v) { return std::to_string(v); }
inline std::string show(uint64_t v) { return std::to_string(v); }
inline std::string show(double v) { return format_double(v); }
inline std::string show(bool v) { return v ? "true" : "false"; }
inline std::string show(const std::string& v) { return v; }
std::string show(const std::vector<uint32_t>& v);
inline const char* type_of(uint32_t*) { return "uint"; }
inline const char* type_of(uint64_t*) { return "uint64"; }
inline const char* type_of(double*) { return "number"; }
inline const char* type_of(bool*) { return "bool"; }
inline const char* type_of(std::string*) { return "text"; }
inline const char* type_of(std::vector<uint32_t>*) { return "uint list"; }
}  // namespace detail

template <class Access>
void ConfigSchema::field(std::string name, Access access, std::string description, std::string type) {
  using T = std::remove_cvref_t<decltype(access(std::declval<GpuSpec&>()))>;
  ConfigKey key;
  key.name = std::move(name);
  key.type = type.empty() ? detail::type_of(static_cast<T*>(nullptr)) : std::move(type);
  key.description = std::move(description);
  key.set = [access](GpuSpec& spec, std::string_view text) { detail::store(access(spec), text); };
  key.get = [access](const GpuSpec& spec) { return detail::show(access(spec)); };
  add(std::move(key));
}

template <class Access, class Enum>
void ConfigSchema::enumeration(std::string name, Access access, std::string description, std::vector<Enum> values,
                               const char* (*value_name)(Enum)) {
  ConfigKey key;
  key.name = std::move(name);
  for (Enum e : values) {
    if (!key.type.empty()) key.type += "|";
    key.type += value_name(e);
  }
  key.description = std::move(description);
  key.set = [access, values, value_name, choices = key.type](GpuSpec& spec, std::string_view text) {
    std::string word = parse_text(text);
    for (char& c : word)
      if (c == '-') c = '_';
    for (Enum e : values)
      if (iequals(word, value_name(e))) {
        access(spec) = e;
        return;
      }
    throw std::invalid_argument("'" + std::string(text) + "' is not one of " + choices);
  };
  key.get = [access, value_name](const GpuSpec& spec) { return std::string(value_name(access(spec))); };
  add(std::move(key));
}

}  // namespace lockstep::config
