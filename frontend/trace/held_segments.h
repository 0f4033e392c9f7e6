#pragma once
// The later segments of one resident block that its holder has taken (the
// cycle model's BlockSlots, the memory model's FunctionalSm): each taken
// once from the kernel's BlockSegments, kept while a warp of the block may
// still read it. The storage of segments no warp reads any more goes to the
// SM's SegmentSpares, shared by its blocks, and is decoded into again: an
// SM then holds about one segment per resident block (and its warps' next
// ones while they cross), plus at most SegmentSpares::kKept, where spares
// kept per block would double that.
#include <cstdint>
#include <memory>
#include <vector>

#include "frontend/trace/block_segments.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

// Storage of segments that no block of one SM reads any more, for the next
// segment one of its blocks takes (no allocation per segment in the steady
// state). Belongs to one SM: used by one thread at a time.
class SegmentSpares {
 public:
  static constexpr size_t kKept = 2;
  // A spare's storage, or a new one.
  std::unique_ptr<BlockTrace> take() {
    if (spares_.empty()) return std::make_unique<BlockTrace>();
    std::unique_ptr<BlockTrace> s = std::move(spares_.back());
    spares_.pop_back();
    return s;
  }
  // Storage no block reads: kept while fewer than kKept are, else freed.
  void give(std::unique_ptr<BlockTrace> s) {
    if (spares_.size() < kKept) spares_.push_back(std::move(s));
  }
  size_t size() const { return spares_.size(); }

 private:
  std::vector<std::unique_ptr<BlockTrace>> spares_;
};

class HeldSegments {
 public:
  // Segment `segment` (>= 1) of the block whose first segment is `first`:
  // taken from `source` the first time it is asked for (empty without a source).
  // Its storage comes from `spares` when they have some.
  const BlockTrace& get(BlockSegments* source, const BlockTrace& first, uint32_t segment, SegmentSpares& spares) {
    for (const auto& s : held_)
      if (s->segment == segment) return *s;
    std::unique_ptr<BlockTrace> s = spares.take();
    if (source) source->take(first.ordinal, segment, *s);
    else s->warps.clear();  // (a block in segments comes with its kernel's BlockSegments)
    s->segment = segment;
    held_.push_back(std::move(s));
    return *held_.back();
  }
  // No warp reads segments before `needed` any more: they go, and with
  // needed > 0 the first segment's instructions (the block keeps its id).
  // The later ones' storage goes to `spares`.
  void drop_before(BlockTrace& first, uint32_t needed, SegmentSpares& spares) {
    if (needed > 0 && !first_dropped_) {
      for (WarpTrace& w : first.warps) {
        std::vector<WarpInstruction>().swap(w.insts);
        w.addrs = LaneAddressStore();
      }
      first_dropped_ = true;
    }
    for (size_t i = 0; i < held_.size();) {
      if (held_[i]->segment < needed) {
        spares.give(std::move(held_[i]));
        held_.erase(held_.begin() + ptrdiff_t(i));
      } else {
        ++i;
      }
    }
  }
  // The block retired (or a new one comes): every segment goes (to `spares`).
  void clear(SegmentSpares& spares) {
    for (auto& s : held_) spares.give(std::move(s));
    held_.clear();
    first_dropped_ = false;
  }

 private:
  std::vector<std::unique_ptr<BlockTrace>> held_;
  bool first_dropped_ = false;
};

}  // namespace lockstep
