#pragma once
// The decoded, ISA-independent form of a thread block's trace: per warp, the
// dynamic instructions (static id, active mask) and the addresses of every
// active lane of every memory instruction. Text parsing and container decoding
// both produce exactly this.
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "frontend/trace/dim3.h"
#include "frontend/trace/static_table.h"

namespace lockstep {

struct WarpInstruction {
  uint32_t static_id = 0;
  uint32_t active_mask = 0;
  uint32_t addr_begin = 0;  // first of popcount(active_mask) addresses, memory instructions only
};

struct WarpTrace {
  uint32_t warp_id = 0;
  std::vector<WarpInstruction> insts;
  std::vector<uint64_t> addrs;

  // Addresses of the active lanes, lowest lane first (empty for non-memory).
  std::span<const uint64_t> lane_addresses(const WarpInstruction& wi, const StaticTable& table) const {
    if (!table.inst(wi.static_id).is_memory()) return {};
    return {addrs.data() + wi.addr_begin, size_t(std::popcount(wi.active_mask))};
  }
};

struct BlockTrace {
  Dim3 id{0, 0, 0};
  std::vector<WarpTrace> warps;

  uint64_t warp_insts() const {
    uint64_t n = 0;
    for (const WarpTrace& w : warps) n += w.insts.size();
    return n;
  }
};

// Frees the storage of `block`'s warps when it holds more than `max_bytes`
// (recycled block storage: keeping it is worth it for small blocks only).
inline void release_if_large(BlockTrace& block, size_t max_bytes) {
  size_t bytes = 0;
  for (const WarpTrace& w : block.warps)
    bytes += w.insts.capacity() * sizeof(WarpInstruction) + w.addrs.capacity() * sizeof(uint64_t);
  if (bytes > max_bytes) block.warps = std::vector<WarpTrace>();
}

// Rewrites static ids through `map` (local table id -> kernel table id).
inline void remap_static_ids(BlockTrace& block, const std::vector<uint32_t>& map) {
  for (WarpTrace& w : block.warps)
    for (WarpInstruction& wi : w.insts) wi.static_id = map[wi.static_id];
}

}  // namespace lockstep
