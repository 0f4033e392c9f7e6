#pragma once
// a / d and a % d for a divisor known only at run time, by shifts when d is a
// power of two (the usual bank and interleave geometry): a hot loop then
// divides by nothing.
#include <bit>
#include <cstdint>

namespace lockstep {

struct Divisor {
  explicit Divisor(uint32_t d) : d(d), shift(std::has_single_bit(d) ? uint32_t(std::countr_zero(d)) : kNoShift) {}
  uint64_t div(uint64_t a) const { return shift != kNoShift ? a >> shift : a / d; }
  uint64_t mod(uint64_t a) const { return shift != kNoShift ? a & (d - 1) : a % d; }
  static constexpr uint32_t kNoShift = 64;
  uint64_t d;
  uint32_t shift;
};

}  // namespace lockstep
