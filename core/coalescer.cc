#include "core/coalescer.h"

#include <algorithm>

namespace lockstep {

void coalesce(std::span<const uint64_t> addrs, uint32_t mask, uint32_t access_bytes, uint32_t group_threads,
              std::vector<SectorAccess>& out) {
  const uint32_t group = std::clamp(group_threads, 1u, 32u);
  const uint32_t bytes = std::clamp(access_bytes, 1u, 128u);
  size_t next = 0;  // index into addrs
  for (uint32_t first = 0; first < 32; first += group) {
    const size_t group_begin = out.size();
    for (uint32_t lane = first; lane < std::min(first + group, 32u); ++lane) {
      if (!(mask >> lane & 1u) || next >= addrs.size()) continue;
      const uint64_t a = addrs[next++];
      for (uint64_t s = a / kSectorBytes; s <= (a + bytes - 1) / kSectorBytes; ++s) {
        // The bytes of [a, a + bytes) that fall in sector s.
        const uint64_t lo = std::max(a, s * kSectorBytes), hi = std::min(a + bytes, (s + 1) * kSectorBytes);
        const uint32_t span = uint32_t(hi - lo), offset = uint32_t(lo - s * kSectorBytes);
        const uint32_t m = (span >= 32 ? 0xffffffffu : ((1u << span) - 1u)) << offset;
        // Consecutive lanes mostly share the sector just added: look there first
        // (a group's sectors are distinct, so this is the one find_if would find).
        if (out.size() > group_begin && out.back().sector == s) {
          out.back().byte_mask |= m;
          continue;
        }
        auto it = std::find_if(out.begin() + long(group_begin), out.end(), [s](const SectorAccess& x) { return x.sector == s; });
        if (it == out.end()) {
          out.push_back(SectorAccess{s, m});
        } else {
          it->byte_mask |= m;
        }
      }
    }
  }
}

}  // namespace lockstep
