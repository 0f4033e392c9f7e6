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
#include <stdexcept>
#include <vector>

namespace lockstep {

template <typename T>
class LatchedQueue {
 public:
  explicit LatchedQueue(size_t capacity = 1) : capacity_(capacity ? capacity : 1), ring_(capacity_) {
    staged_.reserve(capacity_);
  }

  size_t capacity() const { return capacity_; }

  // Producer side. Capacity counts what was visible at the last commit plus
  // what has been staged since; pops in the current cycle free room only
  // after the commit.
  bool can_stage() const { return visible_at_commit_ + staged_.size() < capacity_; }
  size_t free_slots() const { return capacity_ - visible_at_commit_ - staged_.size(); }
  // Requires can_stage() (checked at the commit).
  void stage(const T& item) { staged_.push_back(item); }

  // Consumer side.
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  const T& front() const { return ring_[head_]; }
  void pop() {
    head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
    --count_;
  }

  // Engine: publish the staged items, in staging order.
  void commit() {
    if (count_ + staged_.size() > capacity_)
      throw std::logic_error("LatchedQueue: staged past its capacity (a producer skipped can_stage)");
    for (const T& item : staged_) {
      size_t tail = head_ + count_;
      if (tail >= capacity_) tail -= capacity_;
      ring_[tail] = item;
      ++count_;
    }
    staged_.clear();
    visible_at_commit_ = count_;
  }
  // Nothing staged and nothing visible.
  bool idle() const { return count_ == 0 && staged_.empty(); }

 private:
  // Producer-side and consumer-side state on separate cache lines: the two
  // sides run on different threads in the same cycle (no false sharing). No
  // allocation after construction: visible items live in a fixed ring.
  alignas(64) size_t capacity_;
  size_t visible_at_commit_ = 0;
  std::vector<T> staged_;
  alignas(64) std::vector<T> ring_;
  size_t head_ = 0, count_ = 0;
};

}  // namespace lockstep
