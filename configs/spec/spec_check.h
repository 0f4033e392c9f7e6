#pragma once
// Validation helpers shared by every typed spec (SM, memory system, GPU):
// each message names the config key first, e.g. "sm.subcores = 0: must be >= 1".
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lockstep::spec {

[[noreturn]] inline void fail(std::string_view key, const std::string& value, const std::string& why) {
  throw std::invalid_argument(std::string(key) + " = " + value + ": " + why);
}
[[noreturn]] inline void fail(std::string_view key, uint64_t value, const std::string& why) {
  fail(key, std::to_string(value), why);
}
inline void at_least(std::string_view key, uint64_t value, uint64_t min) {
  if (value < min) fail(key, value, "must be >= " + std::to_string(min));
}
inline void at_most(std::string_view key, uint64_t value, uint64_t max) {
  if (value > max) fail(key, value, "must be <= " + std::to_string(max));
}
inline void power_of_two(std::string_view key, uint64_t value) {
  if (value == 0 || (value & (value - 1)) != 0) fail(key, value, "must be a power of two");
}
inline void within(std::string_view key, uint64_t value, uint64_t min, uint64_t max) {
  at_least(key, value, min);
  at_most(key, value, max);
}

// Upper bounds of config values, from the range of real hardware with room
// to spare (configs/README.md, "Limits"): a value beyond them is a typo or
// would make the model's storage explode, never a GPU.
inline constexpr uint64_t kMaxLatency = 1000000;    // any latency or timing, in its clock's cycles
inline constexpr uint64_t kMaxQueue = 65536;        // entries of any queue, buffer or MSHR table
inline constexpr uint64_t kMaxPerCycle = 64;        // things done per cycle, pipelines, banks of a sub-core
inline constexpr uint64_t kMaxLaunchCost = 100000;  // a kernel-level cost (launch.*): 50 us at 2 GHz

// ASCII case-insensitive equality (config names, unit classes, GPU names).
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = char(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = char(y - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

}  // namespace lockstep::spec
