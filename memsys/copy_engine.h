#pragma once
// The copy engine's part of a MemcpyHtoD (Accel-Sim's -gpgpu_perf_sim_memcpy):
// the copied bytes land in the L2 as written data, each line's sectors at
// once. Only the last L2-sized part of a copy can still be
// in the L2 when it ends, so only that part is visited. Shared by the cycle
// memory system, the cache-functional model (memsys/functional/) and the
// abstract model's memory levels (core/abstract/memory_levels.h).
#include <algorithm>
#include <cstdint>

#include "memsys/sector_cache.h"

namespace lockstep {

// The bytes of [addr, addr + bytes) that can stay in an L2 of `l2_bytes`, a
// line at a time: visit(line_addr, sectors, byte_masks) for each line of
// `line_bytes` they fall in, in address order, where bit s of `sectors` is
// the line's sector s (of `sector_bytes`, at most 32) holding copied bytes
// and byte_masks[s] those bytes (bit b: byte b of the sector). Writing a
// line's sectors in one go leaves a cache as writing each sector's piece one
// after another does: they are consecutive accesses to one line, and only
// the first can allocate it.
template <typename Visit>
void for_each_copied_line(uint64_t addr, uint64_t bytes, uint64_t l2_bytes, uint32_t line_bytes, uint32_t sector_bytes,
                          Visit&& visit) {
  if (bytes > l2_bytes) {
    addr += bytes - l2_bytes;
    bytes = l2_bytes;
  }
  const uint32_t whole = sector_bytes >= 32 ? 0xffffffffu : (1u << sector_bytes) - 1u;
  uint32_t masks[kMaxSectorsPerLine];
  const uint64_t end = addr + bytes;
  for (uint64_t a = addr; a < end;) {
    const uint64_t line = a / line_bytes * line_bytes;
    const uint64_t stop = std::min(end, line + line_bytes);
    const uint32_t first = uint32_t((a - line) / sector_bytes), last = uint32_t((stop - 1 - line) / sector_bytes);
    for (uint32_t s = first; s <= last; ++s) masks[s] = whole;
    // The first and last sectors may hold only part of a piece's sector.
    masks[first] &= whole << uint32_t((a - line) % sector_bytes);
    if (const uint32_t tail = uint32_t((stop - line) % sector_bytes); tail != 0) masks[last] &= (1u << tail) - 1u;
    const uint32_t sectors = uint32_t(((uint64_t(1) << (last - first + 1)) - 1) << first);
    visit(line, sectors, static_cast<const uint32_t*>(masks));
    a = stop;
  }
}

}  // namespace lockstep
