#include "core/block_slots.h"

namespace lockstep {

BlockSlots::BlockSlots(const SmSpec& spec) : blocks_(spec.max_blocks), warp_taken_(spec.max_warps, false) {
  spent_.reserve(spec.max_blocks);
}

bool BlockSlots::can_accept(const Residency& r, const KernelLaunch& l, const SmSpec& spec) {
  if (r.blocks >= l.occupancy.blocks_per_sm) return false;
  if (r.blocks > 0 && r.kernel != l.kernel_index) return false;  // one kernel per SM at a time
  return r.warps + l.warps_per_block <= spec.max_warps;
}

uint32_t BlockSlots::accept(const KernelLaunch& l, std::unique_ptr<BlockTrace> block) {
  current_kernel_ = l.kernel_index;
  uint32_t slot = 0;
  while (blocks_[slot].active) ++slot;
  Block& b = blocks_[slot];
  b.active = true;
  b.trace = std::move(block);
  b.segments = l.segments;
  b.later.clear(spares_);
  b.warp_slots.clear();
  b.at_barrier = 0;
  b.live_warps = 0;
  ++resident_blocks_;
  uint32_t w = 0;
  for (size_t i = 0; i < b.trace->warps.size(); ++i) {
    while (warp_taken_[w]) ++w;
    warp_taken_[w] = true;
    b.warp_slots.push_back(w);
    ++b.live_warps;
    ++resident_warps_;
  }
  return slot;
}

void BlockSlots::finish_warp(uint32_t block, uint32_t warp_slot) {
  warp_taken_[warp_slot] = false;
  --resident_warps_;
  Block& b = blocks_[block];
  --b.live_warps;
  // A warp that ends releases a barrier the others are waiting at.
  if (b.live_warps > 0 && b.at_barrier == b.live_warps) opened_.push_back(block);
  if (b.live_warps == 0) retire(block);
}

void BlockSlots::arrive_at_barrier(uint32_t block) {
  Block& b = blocks_[block];
  if (++b.at_barrier == b.live_warps) opened_.push_back(block);
}

const BlockTrace& BlockSlots::segment(uint32_t block, uint32_t segment) {
  Block& b = blocks_[block];
  return b.later.get(b.segments, *b.trace, segment, spares_);
}

void BlockSlots::drop_segments_before(uint32_t block, uint32_t needed) {
  Block& b = blocks_[block];
  b.later.drop_before(*b.trace, needed, spares_);
}

void BlockSlots::retire(uint32_t block) {
  Block& b = blocks_[block];
  b.active = false;
  b.later.clear(spares_);
  spent_.push_back(std::move(b.trace));  // its storage goes back to the trace reader (take_spent_blocks)
  --resident_blocks_;
  ++retired_blocks_;
}

void BlockSlots::take_spent_blocks(std::vector<std::unique_ptr<BlockTrace>>& spares) {
  for (auto& b : spent_) spares.push_back(std::move(b));
  spent_.clear();
}

}  // namespace lockstep
