#pragma once
// Results in flight to the register file, in completion order: by cycle, and
// within a cycle in the order they were scheduled (a sequence number), so
// same-cycle writebacks are applied in one fixed order.
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
  void push(uint64_t cycle, uint32_t warp, const TimedInstruction* inst, bool memory, uint32_t copy_group) {
    queue_.push(Writeback{cycle, seq_++, warp, inst, memory, copy_group});
  }
  bool empty() const { return queue_.empty(); }
  // The earliest cycle a result is due (UINT64_MAX when none).
  uint64_t next_cycle() const { return queue_.empty() ? UINT64_MAX : queue_.top().cycle; }
  bool due(uint64_t now) const { return !queue_.empty() && queue_.top().cycle <= now; }
  // Removes and returns the earliest result (requires !empty()).
  Writeback pop() {
    const Writeback wb = queue_.top();
    queue_.pop();
    return wb;
  }

 private:
  std::priority_queue<Writeback, std::vector<Writeback>, std::greater<Writeback>> queue_;
  uint64_t seq_ = 0;
};

}  // namespace lockstep
