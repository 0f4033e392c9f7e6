#pragma once
// A port between blocks that may run on different threads (ARCHITECTURE §3):
// the producer stages items during a cycle; they become visible to the
// consumer only after commit(), which the engine calls for every port, in a
// fixed order, once both sides have finished the cycle. The producer's view
// of free capacity is also frozen at the last commit, so neither side ever
// reads state the other is changing in the same cycle: any tick order and any
// thread assignment give the same result.
//
//   producer: can_stage(), stage()          (its own cycle)
//   consumer: empty(), front(), pop()       (its own cycle)
//   engine:   commit()                      (between cycles, both sides idle)
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace lockstep {

template <typename T>
class LatchedQueue {
 public:
  explicit LatchedQueue(size_t capacity = 1) : capacity_(capacity ? capacity : 1) {}

  size_t capacity() const { return capacity_; }

  // Producer side. Capacity counts what was visible at the last commit plus
  // what has been staged since; pops in the current cycle free room only
  // after the commit.
  bool can_stage() const { return visible_at_commit_ + staged_.size() < capacity_; }
  size_t free_slots() const { return capacity_ - visible_at_commit_ - staged_.size(); }
  void stage(const T& item) { staged_.push_back(item); }

  // Consumer side.
  bool empty() const { return visible_.empty(); }
  size_t size() const { return visible_.size(); }
  const T& front() const { return visible_.front(); }
  void pop() { visible_.pop_front(); }

  // Engine: publish the staged items, in staging order.
  void commit() {
    for (const T& item : staged_) visible_.push_back(item);
    staged_.clear();
    visible_at_commit_ = visible_.size();
  }
  // Nothing staged and nothing visible.
  bool idle() const { return visible_.empty() && staged_.empty(); }

 private:
  size_t capacity_;
  size_t visible_at_commit_ = 0;
  std::vector<T> staged_;
  std::deque<T> visible_;
};

}  // namespace lockstep
