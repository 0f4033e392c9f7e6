#pragma once
// The later segments of one resident block that its holder has taken (the
// cycle model's BlockSlots, the memory model's FunctionalSm): each taken
// once from the kernel's BlockSegments, kept while a warp of the block may
// still read it, its storage reused for the next ones.
#include <cstdint>
#include <memory>
#include <vector>

#include "frontend/trace/block_segments.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

class HeldSegments {
 public:
  // Segment `segment` (>= 1) of the block whose first segment is `first`:
  // taken from `source` the first time it is asked for (empty without a source).
  const BlockTrace& get(BlockSegments* source, const BlockTrace& first, uint32_t segment) {
    for (const auto& s : held_)
      if (s->segment == segment) return *s;
    std::unique_ptr<BlockTrace> s;
    if (!spares_.empty()) {
      s = std::move(spares_.back());
      spares_.pop_back();
    } else {
      s = std::make_unique<BlockTrace>();
    }
    if (source) source->take(first.ordinal, segment, *s);
    else s->warps.clear();  // (a block in segments comes with its kernel's BlockSegments)
    s->segment = segment;
    held_.push_back(std::move(s));
    return *held_.back();
  }
  // No warp reads segments before `needed` any more: they go, and with
  // needed > 0 the first segment's instructions (the block keeps its id).
  void drop_before(BlockTrace& first, uint32_t needed) {
    if (needed > 0 && !first_dropped_) {
      for (WarpTrace& w : first.warps) {
        std::vector<WarpInstruction>().swap(w.insts);
        w.addrs = LaneAddressStore();
      }
      first_dropped_ = true;
    }
    for (size_t i = 0; i < held_.size();) {
      if (held_[i]->segment < needed) {
        recycle(std::move(held_[i]));
        held_.erase(held_.begin() + ptrdiff_t(i));
      } else {
        ++i;
      }
    }
  }
  // The block retired (or a new one comes): every segment goes.
  void clear() {
    for (auto& s : held_) recycle(std::move(s));
    held_.clear();
    first_dropped_ = false;
  }

 private:
  static constexpr size_t kSpares = 1;
  void recycle(std::unique_ptr<BlockTrace> s) {
    if (spares_.size() < kSpares) spares_.push_back(std::move(s));
  }
  std::vector<std::unique_ptr<BlockTrace>> held_;
  std::vector<std::unique_ptr<BlockTrace>> spares_;
  bool first_dropped_ = false;
};

}  // namespace lockstep
