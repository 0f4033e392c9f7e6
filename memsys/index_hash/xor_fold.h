#pragma once
// XOR index hash: the XOR of every `bits`-bit group of the value (the index
// bits XORed with each group of higher bits). A bijection on the low bits
// for fixed higher bits.
#include <cstdint>

namespace lockstep {

inline uint32_t xor_fold(uint64_t value, uint32_t bits) {
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t r = 0;
  for (; value != 0; value >>= bits) r ^= value & mask;
  return uint32_t(r);
}

}  // namespace lockstep
