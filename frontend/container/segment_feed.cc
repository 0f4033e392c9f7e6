#include "frontend/container/segment_feed.h"

#include <algorithm>
#include <exception>
#include <new>
#include <utility>

namespace lockstep {

void SegmentFeed::take(uint32_t ordinal, uint32_t segment, BlockTrace& out) noexcept {
  try {
    std::lock_guard lock(mu_);
    if (done_.empty()) done_.assign(index_->blocks.size(), false);
    // (An ordinal out of range is the reader's to report, below.)
    const uint32_t segments = ordinal < index_->blocks.size() ? index_->blocks[ordinal].segments : 0;
    if (segment + 1 < segments) {
      taken_[ordinal] = segment;
    } else if (ordinal < done_.size()) {
      taken_.erase(ordinal);
      done_[ordinal] = true;
    }
    if (auto it = parked_.find(key(ordinal, segment)); it != parked_.end()) {
      std::swap(out, it->second);
      parked_.erase(it);
      return;
    }
    const uint32_t held = handed_out_.load(std::memory_order_acquire);
    // A piece is kept only when it is the one its block takes next (its
    // block took the segment before it, or none with this the first after
    // the block's first), and its block has it. (A block with a taken_ entry
    // has the segment after it: the entry goes once it takes its last.)
    const auto next_for = [&](uint32_t o) {
      if (o == ordinal || o >= held || o >= done_.size() || done_[o]) return false;
      const auto it = taken_.find(o);
      return segment == (it == taken_.end() ? 0 : it->second) + 1;
    };
    // The chunk is decoded up to the last block that may keep its piece (or
    // this one), not past it.
    uint32_t through = ordinal;
    if (ordinal < index_->blocks.size()) {
      const uint32_t end = std::min(reader_.group_blocks(kernel_, ordinal).second, held);
      for (uint32_t o = end; o > ordinal + 1;)
        if (next_for(--o)) {
          through = o;
          break;
        }
    }
    const uint32_t first = reader_.read_segment(kernel_, ordinal, segment, decoded_, scratch_, through);
    for (BlockTrace& piece : decoded_)
      if (piece.segment < piece.segments && next_for(piece.ordinal))
        parked_.emplace(key(piece.ordinal, piece.segment), std::move(piece));
    std::swap(out, decoded_[ordinal - first]);
  } catch (const std::bad_alloc&) {
    fail("out of memory reading block " + std::to_string(ordinal) + " segment " + std::to_string(segment));
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (failed()) {
    out.warps.clear();
    out.ordinal = ordinal;
    out.segment = segment;
  }
}

}  // namespace lockstep
