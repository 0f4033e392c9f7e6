#pragma once
// The decoded, ISA-independent form of a thread block's trace: per warp, the
// dynamic instructions (static id, active mask) and the addresses of every
// active lane of every memory instruction (stored compactly, read back through
// lane_addresses into a caller's scratch). Text parsing and container decoding
// both produce exactly this.
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/trace/dim3.h"
#include "frontend/trace/lane_address_store.h"
#include "frontend/trace/static_table.h"

namespace lockstep {

struct WarpInstruction {
  uint32_t static_id = 0;
  uint32_t active_mask = 0;
  uint32_t addr_ref = 0;  // memory instructions: its popcount(active_mask) addresses in the warp's LaneAddressStore
};

using LaneBuffer = LaneAddressStore::Lanes;

struct WarpTrace {
  uint32_t warp_id = 0;
  std::vector<WarpInstruction> insts;
  LaneAddressStore addrs;

  // Appends a non-memory instruction.
  void push(uint32_t static_id, uint32_t active_mask) { insts.push_back({static_id, active_mask, 0}); }
  // Appends a memory instruction with the addresses of its active lanes, lowest lane first.
  void push(uint32_t static_id, uint32_t active_mask, std::span<const uint64_t> lanes) {
    if (lanes.size() != size_t(std::popcount(active_mask)))
      throw std::invalid_argument("WarpTrace::push: " + std::to_string(lanes.size()) + " addresses for " +
                                  std::to_string(std::popcount(active_mask)) + " active lanes");
    insts.push_back({static_id, active_mask, addrs.append(lanes.data(), uint32_t(lanes.size()))});
  }
  void clear() {
    insts.clear();
    addrs.clear();
  }

  // Addresses of the active lanes of memory instruction `wi` (one of insts),
  // lowest lane first, written into `scratch`.
  std::span<const uint64_t> lane_addresses(const WarpInstruction& wi, LaneBuffer& scratch) const {
    const uint32_t lanes = uint32_t(std::popcount(wi.active_mask));
    addrs.read(wi.addr_ref, lanes, scratch.data());
    return {scratch.data(), lanes};
  }
  // The same, empty for a non-memory instruction.
  std::span<const uint64_t> lane_addresses(const WarpInstruction& wi, const StaticTable& table,
                                           LaneBuffer& scratch) const {
    if (!table.inst(wi.static_id).is_memory()) return {};
    return lane_addresses(wi, scratch);
  }
};

// Appends src's instructions [from, to) to dst, their addresses included
// (`is_memory(static_id)`: whether an instruction carries addresses, i.e. is a
// memory instruction; those with no active lane carry none).
template <class IsMemory>
void append_instructions(WarpTrace& dst, const WarpTrace& src, size_t from, size_t to, IsMemory&& is_memory) {
  LaneBuffer lanes;
  for (size_t i = from; i < to; ++i) {
    const WarpInstruction& wi = src.insts[i];
    if (wi.active_mask != 0 && is_memory(wi.static_id))
      dst.push(wi.static_id, wi.active_mask, src.lane_addresses(wi, lanes));
    else
      dst.insts.push_back({wi.static_id, wi.active_mask, 0});
  }
}

// A thread block's trace, or one segment of it: a long block may be stored
// in segments (proto/trace.proto), segment k holding instructions
// [k * S, (k + 1) * S) of each warp; a consumer that takes segment 0 asks
// BlockSegments for the next ones as its warps need them.
// Where a block sits in its thread-block cluster (version 6 traces: the
// "cluster id", "cluster cta" and "cluster rank" lines after "thread block").
struct ClusterPlace {
  Dim3 id{0, 0, 0};   // the cluster's index in the grid
  Dim3 cta{0, 0, 0};  // the block's index in its cluster
  uint32_t rank = 0;  // the block's rank in its cluster
  bool operator==(const ClusterPlace&) const = default;
};

struct BlockTrace {
  Dim3 id{0, 0, 0};
  bool has_cluster = false;  // the trace gave the block's cluster lines
  ClusterPlace cluster;
  std::vector<WarpTrace> warps;
  uint32_t ordinal = 0;   // the block's position in its kernel (for asking for its next segments)
  uint32_t segment = 0;   // which segment this is (0 for a whole block)
  uint32_t segments = 1;  // segments the block has (1: this is the whole block)
  uint32_t segment_insts = 0;  // S, per warp, when segments > 1

  // Whether a warp whose part of segment `k` holds `part_size` instructions
  // goes on in segment k + 1 (only a full part can).
  bool continues_after(uint32_t k, size_t part_size) const {
    return k + 1 < segments && part_size == segment_insts;
  }

  uint64_t warp_insts() const {
    uint64_t n = 0;
    for (const WarpTrace& w : warps) n += w.insts.size();
    return n;
  }
};

// The heap storage `block` holds (its warps' vectors included).
inline size_t storage_bytes(const BlockTrace& block) {
  size_t bytes = block.warps.capacity() * sizeof(WarpTrace);
  for (const WarpTrace& w : block.warps) bytes += w.insts.capacity() * sizeof(WarpInstruction) + w.addrs.bytes();
  return bytes;
}

// Frees the storage of `block`'s warps when it holds more than `max_bytes`
// (recycled block storage: keeping it is worth it for small blocks only).
inline void release_if_large(BlockTrace& block, size_t max_bytes) {
  if (storage_bytes(block) > max_bytes) block.warps = std::vector<WarpTrace>();
}

// Rewrites static ids through `map` (local table id -> kernel table id).
inline void remap_static_ids(BlockTrace& block, const std::vector<uint32_t>& map) {
  for (WarpTrace& w : block.warps)
    for (WarpInstruction& wi : w.insts) wi.static_id = map[wi.static_id];
}

}  // namespace lockstep
