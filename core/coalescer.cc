#include "core/coalescer.h"

#include <algorithm>

namespace lockstep {

uint32_t count_sectors(std::span<const uint64_t> addrs, uint32_t mask, uint32_t access_bytes, uint32_t group_threads) {
  const uint32_t group = std::clamp(group_threads, 1u, 32u);
  const uint32_t bytes = std::max(access_bytes, 1u);
  uint32_t total = 0;
  size_t next = 0;  // index into addrs
  uint64_t sectors[32 * 2];
  for (uint32_t first = 0; first < 32; first += group) {
    uint32_t n = 0;
    for (uint32_t lane = first; lane < std::min(first + group, 32u); ++lane) {
      if (!(mask >> lane & 1u) || next >= addrs.size()) continue;
      const uint64_t a = addrs[next++];
      for (uint64_t s = a / kSectorBytes; s <= (a + bytes - 1) / kSectorBytes && n < 64; ++s) {
        bool seen = false;
        for (uint32_t i = 0; i < n && !seen; ++i) seen = sectors[i] == s;
        if (!seen) sectors[n++] = s;
      }
    }
    total += n;
  }
  return total;
}

}  // namespace lockstep
