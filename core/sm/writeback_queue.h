#pragma once
// Results in flight to the register file, in completion order: by cycle, and
// within a cycle in the order they were scheduled (a sequence number), so
// same-cycle writebacks are applied in one fixed order.
//
// A timing wheel: a result due within kWheel cycles of the earliest one still
// queued (`base_`) waits in the slot of its cycle, after those scheduled
// before it for that cycle; one due later (or, should it happen, earlier)
// waits in a heap. Each slot then holds one cycle's results in scheduling
// order, and taking the earlier of the first slot's head and the heap's top
// by (cycle, sequence) gives exactly the order of one priority queue. Slots
// keep their storage: no allocation once the wheel has warmed up.
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "core/kernel_program.h"
#include "core/sm/warp_state.h"

namespace lockstep {

struct Writeback {
  uint64_t cycle;
  uint64_t seq;
  uint32_t warp;
  const TimedInstruction* inst;
  bool memory;
  uint32_t copy_group;  // LDGSTS group, or kNoCopyGroup
  bool operator>(const Writeback& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
};

class WritebackQueue {
 public:
  WritebackQueue() : slots_(kWheel) {}

  void push(uint64_t cycle, uint32_t warp, const TimedInstruction* inst, bool memory, uint32_t copy_group) {
    const Writeback wb{cycle, seq_++, warp, inst, memory, copy_group};
    if (count_ == 0) base_ = cycle;  // (nothing queued: the heap is empty too)
    ++count_;
    if (cycle >= base_ && cycle - base_ < kWheel) {
      const uint32_t s = uint32_t(cycle % kWheel);
      slots_[s].items.push_back(WheelItem{wb.seq, inst, warp, uint16_t(copy_group == kNoCopyGroup ? kNoGroup : copy_group),
                                          memory});
      occupied_[s / 64] |= uint64_t(1) << (s % 64);
      if (first_ == kNone || cycle < slot_cycle(first_)) first_ = s;
    } else {
      far_.push(wb);
    }
    next_ = std::min(next_, cycle);
  }
  bool empty() const { return count_ == 0; }
  // The earliest cycle a result is due (UINT64_MAX when none).
  uint64_t next_cycle() const { return next_; }
  bool due(uint64_t now) const { return next_ <= now; }
  // Removes and returns the earliest result (requires !empty()).
  [[gnu::always_inline]] Writeback pop() {
    --count_;
    const uint32_t s = first_;
    if (s != kNone) {
      Slot& slot = slots_[s];
      const WheelItem& item = slot.items[slot.head];
      const Writeback head{slot_cycle(s), item.seq, item.warp, item.inst, item.memory,
                           item.copy_group == kNoGroup ? kNoCopyGroup : item.copy_group};
      if (far_.empty() || far_.top() > head) {
        const Writeback wb = head;
        base_ = wb.cycle;  // every queued result is due at or after it
        if (++slot.head == slot.items.size()) {
          slot.items.clear();
          slot.head = 0;
          occupied_[s / 64] &= ~(uint64_t(1) << (s % 64));
          first_ = first_slot();
        }
        update_next();
        return wb;
      }
    }
    const Writeback wb = far_.top();
    far_.pop();
    if (wb.cycle > base_ && s == kNone) base_ = wb.cycle;  // (slots empty: any base above them holds)
    update_next();
    return wb;
  }

 private:
  static constexpr uint32_t kWheel = 64;  // a power of two, a multiple of 64 (ALU latencies fit; memory may go beyond)
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint16_t kNoGroup = UINT16_MAX;
  static_assert(kCopyGroups < kNoGroup);
  // A result in the wheel: its cycle is its slot's (24 bytes, where a Writeback takes 40).
  struct WheelItem {
    uint64_t seq;
    const TimedInstruction* inst;
    uint32_t warp;
    uint16_t copy_group;  // or kNoGroup
    bool memory;
  };
  struct Slot {
    std::vector<WheelItem> items;
    size_t head = 0;
  };

  // The occupied slot holding the earliest cycle: the first from base_'s slot on.
  uint32_t first_slot() const {
    const uint32_t start = uint32_t(base_ % kWheel);
    for (uint32_t k = 0; k <= kWheel / 64; ++k) {
      const uint32_t word = (start / 64 + k) % (kWheel / 64);
      uint64_t bits = occupied_[word];
      if (k == 0) bits &= ~uint64_t(0) << (start % 64);                          // from start on
      else if (k == kWheel / 64) bits &= (uint64_t(1) << (start % 64)) - 1;      // wrapped back below start
      if (bits) return word * 64 + uint32_t(std::countr_zero(bits));
    }
    return kNone;
  }
  uint64_t slot_cycle(uint32_t s) const { return base_ + ((s - base_ % kWheel) % kWheel); }
  void update_next() {
    next_ = far_.empty() ? UINT64_MAX : far_.top().cycle;
    if (first_ != kNone) next_ = std::min(next_, slot_cycle(first_));
  }

  std::vector<Slot> slots_;
  std::array<uint64_t, kWheel / 64> occupied_{};
  std::priority_queue<Writeback, std::vector<Writeback>, std::greater<Writeback>> far_;
  uint64_t base_ = 0;   // no queued result is due before it (slots: within kWheel of it)
  uint32_t first_ = kNone;         // the occupied slot of the earliest cycle in the wheel
  uint64_t next_ = UINT64_MAX;     // the earliest cycle queued
  uint64_t seq_ = 0;
  size_t count_ = 0;
};

}  // namespace lockstep
