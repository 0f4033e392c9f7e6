#pragma once
// The copy engine's part of a MemcpyHtoD (Accel-Sim's -gpgpu_perf_sim_memcpy):
// the copied bytes land in the L2 as written data, piece by piece, each
// piece inside one sector. Only the last L2-sized part of a copy can still be
// in the L2 when it ends, so only that part is visited. Shared by the cycle
// memory system and the cache-functional model (memsys/functional/).
#include <algorithm>
#include <cstdint>

namespace lockstep {

// visit(addr, bytes) for each piece of [addr, addr + bytes) that can stay in
// an L2 of `l2_bytes`, in address order, no piece crossing a `sector_bytes` boundary.
template <typename Visit>
void for_each_copied_piece(uint64_t addr, uint64_t bytes, uint64_t l2_bytes, uint32_t sector_bytes, Visit&& visit) {
  if (bytes > l2_bytes) {
    addr += bytes - l2_bytes;
    bytes = l2_bytes;
  }
  for (uint64_t a = addr; a < addr + bytes;) {
    const uint64_t end = std::min(addr + bytes, (a / sector_bytes + 1) * sector_bytes);
    visit(a, uint32_t(end - a));
    a = end;
  }
}

}  // namespace lockstep
