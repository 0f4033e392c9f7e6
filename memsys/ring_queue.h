#pragma once
// A FIFO in one ring of storage, for the memory side's queues: sized once
// from the configured bound, its storage is reused for the whole run, so a
// steady cycle loop never allocates (std::deque allocates and frees a block
// every few hundred items that pass through it). A queue whose bound is not
// strict (the L2 miss queue takes a fill's write-backs even when full) grows
// by doubling when it is full: storage then only ever grows to the largest
// size the run needed, once.
#include <cstddef>
#include <utility>
#include <vector>

namespace lockstep {

template <typename T>
class RingQueue {
 public:
  explicit RingQueue(size_t capacity = 1) : items_(capacity ? capacity : 1) {}

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  size_t capacity() const { return items_.size(); }
  const T& front() const { return items_[head_]; }
  T& front() { return items_[head_]; }

  void push_back(const T& item) {
    if (count_ == items_.size()) grow();
    size_t tail = head_ + count_;
    if (tail >= items_.size()) tail -= items_.size();
    items_[tail] = item;
    ++count_;
  }
  void pop_front() {
    head_ = head_ + 1 == items_.size() ? 0 : head_ + 1;
    --count_;
  }

 private:
  void grow() {
    std::vector<T> bigger(items_.size() * 2);
    for (size_t i = 0; i < count_; ++i) bigger[i] = std::move(items_[(head_ + i) % items_.size()]);
    items_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> items_;
  size_t head_ = 0, count_ = 0;
};

}  // namespace lockstep
