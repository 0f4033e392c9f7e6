#pragma once
// Linear index hash: the low `bits` bits of the value (plain address bits).
#include <cstdint>

namespace lockstep {

inline uint32_t linear_index(uint64_t value, uint32_t bits) {
  return uint32_t(value & ((uint64_t(1) << bits) - 1));
}

}  // namespace lockstep
