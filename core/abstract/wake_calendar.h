#pragma once
// The warps of one sub-core waiting for a known cycle (bit i: the warp of
// index i in the sub-core, at most 64). Waits shorter than 64 cycles go to a
// wheel of 64 per-cycle bit sets; longer ones (memory results) to a heap.
// Every operation is a few bit operations except the rare heap ones; no
// allocation after construction.
//
// Contract: a warp is added with a cycle >= the caller's `now`, and
// take_due(now) is called with non-decreasing `now`; everything added with a
// cycle <= the last take_due(now) comes out at the next take_due (as if
// added for the cycle after it).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace lockstep {

class WakeCalendar {
 public:
  WakeCalendar() { far_.reserve(64); }

  [[gnu::always_inline]] void add(uint32_t index, uint64_t cycle, uint64_t now) {
    if (wheel_ == 0) next_ = std::max(next_, now);
    cycle = std::max(cycle, next_);
    if (cycle - next_ < 64) {
      buckets_[cycle % 64] |= uint64_t(1) << index;
      wheel_ |= uint64_t(1) << (cycle % 64);
    } else {
      far_.emplace_back(cycle, index);
      std::push_heap(far_.begin(), far_.end(), std::greater<>());
    }
  }

  // The warps due at or before `now`, removed from the calendar.
  [[gnu::always_inline]] uint64_t take_due(uint64_t now) {
    uint64_t due = 0;
    if (now >= next_ && wheel_ != 0) {
      const uint64_t span = now - next_ + 1;  // cycles next_ .. now
      uint64_t range = span >= 64 ? ~uint64_t(0) : ((uint64_t(1) << span) - 1);
      range = std::rotl(range, int(next_ % 64));
      for (uint64_t m = wheel_ & range; m != 0; m &= m - 1) {
        uint64_t& bucket = buckets_[std::countr_zero(m)];
        due |= bucket;
        bucket = 0;
      }
      wheel_ &= ~range;
    }
    next_ = std::max(next_, now + 1);
    while (!far_.empty() && far_.front().first <= now) {
      due |= uint64_t(1) << far_.front().second;
      std::pop_heap(far_.begin(), far_.end(), std::greater<>());
      far_.pop_back();
    }
    return due;
  }

  // The first cycle a warp is due (UINT64_MAX: none waiting).
  uint64_t earliest() const {
    uint64_t first = far_.empty() ? UINT64_MAX : far_.front().first;
    if (wheel_ != 0)
      first = std::min(first, next_ + uint64_t(std::countr_zero(std::rotr(wheel_, int(next_ % 64)))));
    return first;
  }

 private:
  std::array<uint64_t, 64> buckets_{};  // by cycle % 64
  uint64_t wheel_ = 0;                  // bit c: bucket c is not empty
  uint64_t next_ = 0;                   // the first cycle not taken yet; the wheel holds next_ .. next_ + 63
  std::vector<std::pair<uint64_t, uint32_t>> far_;  // min-heap of (cycle, index)
};

}  // namespace lockstep
