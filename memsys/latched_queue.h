#pragma once
// A port between blocks that may run on different threads (ARCHITECTURE §3):
// what the producer stages in core cycle n becomes visible to the consumer in
// cycle n + 1, and the producer's view of free room in cycle n counts the
// consumer's pops only up to the end of cycle n - 1. So neither side ever
// reads state the other is changing in the same cycle: any tick order and any
// thread assignment give the same result.
//
// The hand-over needs no serial step between cycles: staging areas and the
// published pop counts alternate with the parity of the cycle (PortClock),
// and each side touches only the half the other side is not using.
//
//   producer, in its cycle:   can_stage(), stage()
//   consumer, in its cycle:   receive() first (takes in what was staged in
//                             the previous cycle), then empty(), front(),
//                             pop(), and publish_pops() last
//   engine, between cycles:   settle() (both sides idle: after a jump in
//                             time, or in a harness that runs no consumer)
//
// The consumer must call receive() in every cycle, also in cycles in which
// it does nothing else (or, for a queue that reports its stages to a
// StagedPorts, in every cycle after one in which it was marked and while it
// holds packets), and publish_pops() in every cycle in which it popped
// and in the cycle after (calling it in every cycle is simplest); the two
// halves of the published pop count then both hold the total.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "memsys/staged_ports.h"

namespace lockstep {

// The core cycle now running, for the ports' parity. The engine sets it
// between cycles; while a cycle runs every thread only reads it.
struct PortClock {
  uint64_t cycle = 0;
};

template <typename T>
class LatchedQueue {
 public:
  LatchedQueue(size_t capacity, const PortClock* clock) : capacity_(capacity ? capacity : 1), clock_(clock) {
    for (Staging& s : staging_) s.items.resize(capacity_);
    ring_.resize(capacity_);
  }

  size_t capacity() const { return capacity_; }

  // Producer side. Room counts what was visible at the end of the previous
  // cycle plus what has been staged since; pops in the current cycle free
  // room only from the next one on.
  size_t free_slots() const {
    const uint64_t in_flight = staged_total_ - published_pops(parity() ^ 1);
    if (in_flight > capacity_) [[unlikely]]
      throw std::logic_error("LatchedQueue: the published pop count went back (a consumer skipped publish_pops)");
    return capacity_ - size_t(in_flight);
  }
  bool can_stage() const { return free_slots() > 0; }
  void stage(const T& item) {
    if (!can_stage()) throw std::logic_error("LatchedQueue: staged past its capacity (a producer skipped can_stage)");
    Staging& s = staging_[parity()];
    s.items[s.count++] = item;
    ++staged_total_;
    if (staged_ports_) staged_ports_->mark(parity(), port_);
  }
  // Marks `port` in `ports` whenever something is staged (set up before the first cycle).
  void report_stages_to(StagedPorts* ports, uint32_t port) {
    staged_ports_ = ports;
    port_ = port;
  }

  // Consumer side.
  // Takes in, in staging order, what the producer staged in the previous cycle.
  void receive() { take_staged(parity() ^ 1); }
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  const T& front() const { return ring_[head_]; }
  void pop() {
    head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
    --count_;
    ++popped_total_;
  }
  // Makes this cycle's pops count as free room for the producer's next cycle.
  // Written only when it changes, so that the producer's cached copy stays valid.
  void publish_pops() {
    uint64_t& published = pops_[parity()].total;
    if (published != popped_total_) published = popped_total_;
  }

  // Engine, between cycles with both sides idle: everything staged becomes
  // visible and every pop counts as room, whatever the parity of the next cycle.
  void settle() {
    take_staged(parity() ^ 1);
    take_staged(parity());
    pops_[0].total = pops_[1].total = popped_total_;
    if (staged_ports_ && count_ > 0) {  // whatever the next cycle's parity, its consumer looks here
      staged_ports_->mark(0, port_);
      staged_ports_->mark(1, port_);
    }
  }
  // Nothing staged and nothing visible.
  bool idle() const { return count_ == 0 && staging_[0].count == 0 && staging_[1].count == 0; }

 private:
  // Each part on a cache line of its own: producer and consumer run on
  // different threads in the same cycle, each writing only its own parts.
  // No allocation after construction.
  struct alignas(64) Staging {  // written by the producer in cycles of one parity, emptied by the consumer in the next
    std::vector<T> items;
    size_t count = 0;
  };
  struct alignas(64) PublishedPops {  // written by the consumer at the end of cycles of one parity
    uint64_t total = 0;
  };

  unsigned parity() const { return unsigned(clock_->cycle & 1); }
  uint64_t published_pops(unsigned p) const { return pops_[p].total; }
  void take_staged(unsigned p) {
    Staging& s = staging_[p];
    if (s.count == 0) return;  // (no write: the line stays shared with the producer)
    for (size_t i = 0; i < s.count; ++i) {
      size_t tail = head_ + count_;
      if (tail >= capacity_) tail -= capacity_;
      ring_[tail] = s.items[i];
      ++count_;
    }
    s.count = 0;
  }

  const size_t capacity_;
  const PortClock* const clock_;
  StagedPorts* staged_ports_ = nullptr;  // producer side, set once
  uint32_t port_ = 0;
  alignas(64) uint64_t staged_total_ = 0;  // producer: items ever staged
  Staging staging_[2];
  PublishedPops pops_[2];
  alignas(64) std::vector<T> ring_;  // consumer: the visible items
  size_t head_ = 0, count_ = 0;
  uint64_t popped_total_ = 0;
};

}  // namespace lockstep
