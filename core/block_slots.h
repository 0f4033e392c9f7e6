#pragma once
// The block (CTA) slots of one SM, independent of how the SM times its warps
// (any SM model can hold its blocks in one): which blocks and warps are
// resident and of which kernel, whether another block fits, the warp slots a
// block takes (lowest free first), the block's barrier (arrivals counted
// against its live warps), retirement, and the traces of retired blocks kept
// for the dispatcher to reuse.
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "core/kernel_program.h"
#include "core/occupancy.h"
#include "configs/spec/sm_spec.h"
#include "frontend/trace/block_segments.h"
#include "frontend/trace/held_segments.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

struct KernelLaunch {
  uint32_t kernel_index = 0;
  const KernelProgram* program = nullptr;
  Occupancy occupancy;
  uint32_t warps_per_block = 0;
  uint8_t stat_slot = 0;  // the kernel's memory statistics slot
  BlockSegments* segments = nullptr;  // the later segments of blocks handed out as their first
};

class BlockSlots {
 public:
  // What the block dispatcher needs to know of an SM.
  struct Residency {
    uint32_t blocks = 0;           // resident blocks
    uint32_t warps = 0;            // resident (unfinished) warps
    uint32_t kernel = UINT32_MAX;  // current_kernel()
    bool operator==(const Residency&) const = default;
  };
  explicit BlockSlots(const SmSpec& spec);

  Residency residency() const { return Residency{resident_blocks_, resident_warps_, current_kernel_}; }
  // Whether an SM of `spec` in state `r` can take a block of `launch`:
  // within the kernel's blocks per SM, one kernel per SM at a time, within max_warps.
  static bool can_accept(const Residency& r, const KernelLaunch& launch, const SmSpec& spec);
  // The kernel whose blocks the SM holds or held last (UINT32_MAX before any).
  uint32_t current_kernel() const { return current_kernel_; }
  uint32_t resident_blocks() const { return resident_blocks_; }
  uint32_t resident_warps() const { return resident_warps_; }

  // Takes a block of `launch` into the lowest free block slot, its warps (in
  // trace order) into the lowest free warp slots; returns the block slot.
  uint32_t accept(const KernelLaunch& launch, std::unique_ptr<BlockTrace> block);
  std::span<const uint32_t> warp_slots(uint32_t block) const { return blocks_[block].warp_slots; }
  // The block's trace (its first segment, for a block stored in segments);
  // null once the block retired.
  const BlockTrace* trace(uint32_t block) const { return blocks_[block].trace.get(); }
  // Segment `segment` >= 1 of the block, taken from the launch's
  // BlockSegments the first time a warp asks for it.
  const BlockTrace& segment(uint32_t block, uint32_t segment);
  // No warp reads segments of the block before `needed` any more: their
  // storage goes (segment 0's instructions only: the block keeps its id).
  void drop_segments_before(uint32_t block, uint32_t needed);

  // The warp in `warp_slot` of `block` finished: its slot is free; its block
  // retires when it was the last live warp, else a barrier the other live
  // warps all wait at opens.
  void finish_warp(uint32_t block, uint32_t warp_slot);
  // A warp of `block` arrived at the barrier; it opens when every live warp has.
  void arrive_at_barrier(uint32_t block);
  // Barriers that opened since the last release_barriers().
  bool barriers_opened() const { return !opened_.empty(); }
  // Opens them: calls release(warp_slot) for every warp slot of each block whose barrier opened.
  template <typename Release>
  void release_barriers(Release&& release);

  // Blocks retired since the last call.
  uint32_t take_retired_blocks() { return std::exchange(retired_blocks_, 0u); }
  // Moves the traces of retired blocks to `spares`.
  void take_spent_blocks(std::vector<std::unique_ptr<BlockTrace>>& spares);

 private:
  struct Block {
    bool active = false;
    std::unique_ptr<BlockTrace> trace;
    BlockSegments* segments = nullptr;
    HeldSegments later;  // its later segments taken and still read
    std::vector<uint32_t> warp_slots;
    uint32_t live_warps = 0;
    uint32_t at_barrier = 0;
  };
  void retire(uint32_t block);

  // What an SM reads every cycle first (residency, barriers to open): the
  // first bytes, on the cache line an SM model's tick starts on (SmModel).
  uint32_t resident_blocks_ = 0;
  uint32_t resident_warps_ = 0;
  uint32_t retired_blocks_ = 0;
  uint32_t current_kernel_ = UINT32_MAX;
  std::vector<uint32_t> opened_;  // blocks whose barrier opens at the next release
  std::vector<Block> blocks_;     // max_blocks slots
  std::vector<bool> warp_taken_;  // max_warps slots
  std::vector<std::unique_ptr<BlockTrace>> spent_;
  SegmentSpares spares_;  // storage of the blocks' segments no warp reads any more
};

template <typename Release>
void BlockSlots::release_barriers(Release&& release) {
  for (uint32_t slot : opened_) {
    Block& b = blocks_[slot];
    if (!b.active || b.at_barrier == 0) continue;
    for (uint32_t w : b.warp_slots) release(w);
    b.at_barrier = 0;
  }
  opened_.clear();
}

}  // namespace lockstep
