#include "core/coalescer.h"

#include "frontend/trace/block_trace.h"

#include <algorithm>
#include <array>
#include <bit>

namespace lockstep {
namespace {

// The bytes of [begin, end) that fall in sector s (which the range overlaps).
inline uint32_t bytes_in_sector(uint64_t begin, uint64_t end, uint64_t s) {
  const uint64_t lo = std::max(begin, s * kSectorBytes), hi = std::min(end, (s + 1) * kSectorBytes);
  const uint32_t span = uint32_t(hi - lo), offset = uint32_t(lo - s * kSectorBytes);
  return (span >= 32 ? 0xffffffffu : ((1u << span) - 1u)) << offset;
}

// The number of lanes of `lanes` (at most `available` addresses from `at`)
// whose accesses of `bytes` follow each other with no gap, lowest lane first,
// when all of them do; 0 otherwise.
inline size_t back_to_back(const uint64_t* at, size_t available, uint32_t lanes, uint32_t bytes) {
  size_t n = 0;
  for (uint64_t expect = available ? at[0] : 0; lanes != 0 && n < available; lanes &= lanes - 1, ++n, expect += bytes)
    if (at[n] != expect) return 0;
  return n;
}

// One request per sector of the bytes [begin, end), in address order: the
// first sector's bytes from the range's start, whole sectors up to the last
// (none when the range wraps past 2^64).
[[gnu::always_inline]] inline void append_range(uint64_t begin, uint64_t end, std::vector<SectorAccess>& out) {
  const uint64_t first = begin / kSectorBytes, last = (end - 1) / kSectorBytes;
  if (first > last) return;
  if (first == last) {
    out.push_back(SectorAccess{first, bytes_in_sector(begin, end, first)});
    return;
  }
  out.push_back(SectorAccess{first, 0xffffffffu << (begin % kSectorBytes)});
  for (uint64_t s = first + 1; s < last; ++s) out.push_back(SectorAccess{s, 0xffffffffu});
  out.push_back(SectorAccess{last, bytes_in_sector(begin, end, last)});
}

// The requests of one group as they are built: those from `begin` in `out`,
// `top` the highest sector among them (valid when out.size() > begin).
struct GroupRequests {
  std::vector<SectorAccess>& out;
  size_t begin;
  uint64_t top = 0;

  // Adds `m` to sector `s` among the group's requests, or appends a request for it.
  void touch(uint64_t s, uint32_t m) {
    if (out.size() == begin || s > top) {  // (addresses mostly rise: a sector above every one so far is new)
      out.push_back(SectorAccess{s, m});
      top = s;
      return;
    }
    // Neighbouring lanes mostly touch the sector the lane before touched: look there first.
    if (out.back().sector == s) {
      out.back().byte_mask |= m;
      return;
    }
    auto it = std::find_if(out.begin() + long(begin), out.end(), [s](const SectorAccess& x) { return x.sector == s; });
    if (it == out.end()) {
      out.push_back(SectorAccess{s, m});
    } else {
      it->byte_mask |= m;
    }
  }
};

}  // namespace

void coalesce(std::span<const uint64_t> addrs, uint32_t mask, uint32_t access_bytes, uint32_t group_threads,
              std::vector<SectorAccess>& out) {
  const uint32_t group = std::clamp(group_threads, 1u, 32u);
  const uint32_t bytes = std::clamp(access_bytes, 1u, 128u);
  const uint32_t one_sector_mask = bytes >= 32 ? 0xffffffffu : (1u << bytes) - 1u;
  size_t next = 0;  // index into addrs: one address per active lane, lowest lane first
  for (uint32_t first = 0; first < 32; first += group) {
    GroupRequests requests{out, out.size()};
    uint32_t lanes = mask & uint32_t(((uint64_t(1) << group) - 1) << first);
    if (lanes == 0) continue;
    // Unit stride (the common case): the group reads one range of bytes, its
    // sectors in address order, each once.
    if (const size_t n = back_to_back(addrs.data() + next, addrs.size() - next, lanes, bytes); n > 0) {
      append_range(addrs[next], addrs[next] + n * bytes, out);
      next += n;
      continue;
    }
    for (; lanes != 0 && next < addrs.size(); lanes &= lanes - 1) {
      const uint64_t a = addrs[next++];
      const uint64_t first_sector = a / kSectorBytes, last_sector = (a + bytes - 1) / kSectorBytes;
      if (first_sector == last_sector) {
        requests.touch(first_sector, one_sector_mask << (a % kSectorBytes));
        continue;
      }
      for (uint64_t s = first_sector; s <= last_sector; ++s) {
        requests.touch(s, bytes_in_sector(a, a + bytes, s));
      }
    }
  }
}

bool coalesce_strided(uint64_t first, uint64_t stride, uint32_t mask, uint32_t access_bytes, uint32_t group_threads,
                      std::vector<SectorAccess>& out) {
  const uint32_t group = std::clamp(group_threads, 1u, 32u);
  const uint32_t bytes = std::clamp(access_bytes, 1u, 128u);
  const uint32_t lanes = uint32_t(std::popcount(mask));
  if (stride != bytes) {
    if (stride == 0 || lanes <= 1) {
      // Every lane accesses the same bytes (a single lane, mostly): each group
      // with an active lane reads them once (what coalesce() makes of them).
      for (uint32_t g = 0; g < 32; g += group)
        if (mask & uint32_t(((uint64_t(1) << group) - 1) << g)) append_range(first, first + bytes, out);
      return false;
    }
    std::array<uint64_t, 32> a;
    for (uint32_t k = 0; k < lanes; ++k) a[k] = first + k * stride;
    coalesce(std::span<const uint64_t>(a.data(), lanes), mask, access_bytes, group_threads, out);
    return false;
  }
  // Back to back: each group reads one range of bytes (coalesce()'s unit-stride case).
  if (mask == 0xffffffffu && first % kSectorBytes == 0 && group * bytes % kSectorBytes == 0) {
    // Every lane, from a sector's start, every group whole sectors (the
    // common case): the warp's bytes are whole sectors in address order.
    const uint64_t begin = first / kSectorBytes, end = begin + 32 * bytes / kSectorBytes;
    for (uint64_t s = begin; s < end; ++s) out.push_back(SectorAccess{s, 0xffffffffu});
    return true;
  }
  uint64_t begin = first;
  for (uint32_t g = 0; g < 32; g += group) {
    const uint32_t n = uint32_t(std::popcount(mask & uint32_t(((uint64_t(1) << group) - 1) << g)));
    if (n == 0) continue;
    append_range(begin, begin + uint64_t(n) * bytes, out);
    begin += uint64_t(n) * bytes;
  }
  return false;
}

bool coalesce_instruction(const WarpTrace& trace, const WarpInstruction& wi, bool has_addresses, uint32_t access_bytes,
                          uint32_t group_threads, std::vector<SectorAccess>& out) {
  const uint32_t active = uint32_t(std::popcount(wi.active_mask));
  uint64_t first = 0, stride = 0;
  if (has_addresses && active > 0 && trace.addrs.strided(wi.addr_ref, active, &first, &stride))
    return coalesce_strided(first, stride, wi.active_mask, access_bytes, group_threads, out);
  LaneBuffer lanes;
  coalesce(has_addresses ? trace.lane_addresses(wi, lanes) : std::span<const uint64_t>(), wi.active_mask, access_bytes,
           group_threads, out);
  return false;
}

}  // namespace lockstep
