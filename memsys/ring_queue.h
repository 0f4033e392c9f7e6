#pragma once
// A FIFO in one ring of storage, for the memory side's queues: sized once
// from the configured bound, its storage is reused for the whole run, so a
// steady cycle loop never allocates (std::deque allocates and frees a block
// every few hundred items that pass through it). A queue whose bound is not
// strict (the L2 miss queue takes a fill's write-backs even when full) grows
// by doubling when it is full: storage then only ever grows to the largest
// size the run needed, once.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace lockstep {

template <typename T>
class RingQueue {
 public:
  explicit RingQueue(size_t capacity = 1)
      : capacity_(uint32_t(std::clamp<size_t>(capacity, 1, kMaxCapacity))), items_(allocate(capacity_)) {}

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  size_t capacity() const { return capacity_; }
  const T& front() const { return items_[head_]; }
  T& front() { return items_[head_]; }

  void push_back(const T& item) {
    if (count_ == capacity_) grow();
    uint32_t tail = head_ + count_;
    if (tail >= capacity_) tail -= capacity_;
    items_[tail] = item;
    ++count_;
  }
  void pop_front() {
    head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
    --count_;
  }

 private:
  // The header is 24 bytes: a unit's queues lie side by side in few cache lines.
  static constexpr size_t kMaxCapacity = size_t(1) << 31;
  // Storage is left unwritten until items are pushed (plain data: malloc'd
  // storage holds such objects once written): a run's many queues, sized for
  // their bounds, cost no page until they hold something (a slice's queues
  // are tens of KB, most of them never near full).
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "RingQueue holds plain data");
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  static std::unique_ptr<T[], Free> allocate(size_t n) {
    T* p = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (p == nullptr) throw std::bad_alloc();
    return std::unique_ptr<T[], Free>(p);
  }
  void grow() {
    if (capacity_ >= kMaxCapacity) throw std::length_error("RingQueue: more than 2^31 items queued");
    std::unique_ptr<T[], Free> bigger = allocate(size_t(capacity_) * 2);
    for (uint32_t i = 0; i < count_; ++i) bigger[i] = items_[(head_ + i) % capacity_];
    items_ = std::move(bigger);
    capacity_ *= 2;
    head_ = 0;
  }

  uint32_t capacity_;
  uint32_t head_ = 0, count_ = 0;
  std::unique_ptr<T[], Free> items_;
};

}  // namespace lockstep
