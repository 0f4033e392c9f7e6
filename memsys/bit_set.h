#pragma once
// Walking bit sets stored as 64-bit words (the crossbars' request and
// occupancy sets, the memory system's sets of ports holding packets).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lockstep {

// Calls visit(i) for every set bit i of the set in bits[base, base + words),
// in increasing order.
template <typename Visit>
void for_each_set_bit(const std::vector<uint64_t>& bits, size_t base, size_t words, Visit&& visit) {
  for (size_t w = 0; w < words; ++w)
    for (uint64_t word = bits[base + w]; word; word &= word - 1)
      visit(uint32_t(w * 64) + uint32_t(std::countr_zero(word)));
}

}  // namespace lockstep
