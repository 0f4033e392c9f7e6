#include "frontend/container/segment_feed.h"

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
    const uint32_t first = reader_.read_segment(kernel_, ordinal, segment, decoded_, scratch_);
    const uint32_t held = handed_out_.load(std::memory_order_acquire);
    for (BlockTrace& piece : decoded_) {
      // Kept only when it is the one its block takes next.
      if (piece.ordinal == ordinal || piece.segment >= piece.segments || piece.ordinal >= held ||
          done_[piece.ordinal])
        continue;
      const auto it = taken_.find(piece.ordinal);
      if (piece.segment != (it == taken_.end() ? 0 : it->second) + 1) continue;
      parked_.emplace(key(piece.ordinal, piece.segment), std::move(piece));
    }
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
