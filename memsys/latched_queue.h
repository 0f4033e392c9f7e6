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
// StagedPorts, in every cycle after one in which it was marked: receive()
// takes in only what was staged), and publish_pops() in every cycle in
// which it popped and in the cycle after (calling it in every cycle is
// simplest); the two halves of the published pop count then both hold the
// total.
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
  LatchedQueue(size_t capacity, const PortClock* clock) {
    const size_t cap = capacity ? capacity : 1;
    producer_.capacity = cap;
    producer_.clock = clock;
    for (Half& h : halves_) h.items.resize(cap);
    consumer_.capacity = cap;
    consumer_.clock = clock;
    consumer_.ring.resize(cap);
  }

  size_t capacity() const { return producer_.capacity; }

  // Producer side. Room counts what was visible at the end of the previous
  // cycle plus what has been staged since; pops in the current cycle free
  // room only from the next one on.
  size_t free_slots() const {
    const uint64_t in_flight = producer_.staged_total - halves_[producer_parity()].pops;
    if (in_flight > producer_.capacity) [[unlikely]]
      throw std::logic_error("LatchedQueue: the published pop count went back (a consumer skipped publish_pops)");
    return producer_.capacity - size_t(in_flight);
  }
  bool can_stage() const { return free_slots() > 0; }
  [[gnu::always_inline]] void stage(const T& item) {
    if (!can_stage()) throw std::logic_error("LatchedQueue: staged past its capacity (a producer skipped can_stage)");
    const unsigned parity = producer_parity();
    Half& h = halves_[parity];
    h.items[h.count++] = item;
    ++producer_.staged_total;
    if (producer_.staged_ports) producer_.staged_ports->mark(parity, producer_.port);
  }
  // Marks `port` in `ports` whenever something is staged (set up before the first cycle).
  void report_stages_to(StagedPorts* ports, uint32_t port) {
    producer_.staged_ports = ports;
    producer_.port = port;
  }

  // Consumer side.
  // Takes in, in staging order, what the producer staged in the previous cycle.
  void receive() { take_staged(consumer_parity() ^ 1); }
  bool empty() const { return consumer_.count == 0; }
  size_t size() const { return consumer_.count; }
  const T& front() const { return consumer_.ring[consumer_.head]; }
  void pop() {
    consumer_.head = consumer_.head + 1 == consumer_.capacity ? 0 : consumer_.head + 1;
    --consumer_.count;
    ++consumer_.popped_total;
  }
  // Makes this cycle's pops count as free room for the producer's next cycle.
  // Written only when it changes, so that the producer's cached copy stays valid.
  // Compared with the consumer's own copy of what each half holds, so that a
  // cycle without pops reads no line the producer reads.
  void publish_pops() {
    const unsigned half = consumer_parity() ^ 1;
    if (consumer_.published[half] != consumer_.popped_total) {
      halves_[half].pops = consumer_.published[half] = consumer_.popped_total;
    }
  }
  // The parity of the cycle whose stages receive() takes in now (the one a
  // StagedPorts this queue reports to holds its mark under).
  unsigned receive_parity() const { return consumer_parity() ^ 1; }

  // Engine, between cycles with both sides idle: everything staged becomes
  // visible and every pop counts as room, whatever the parity of the next cycle.
  void settle() {
    take_staged(consumer_parity() ^ 1);
    take_staged(consumer_parity());
    halves_[0].pops = halves_[1].pops = consumer_.popped_total;
    consumer_.published[0] = consumer_.published[1] = consumer_.popped_total;
    if (producer_.staged_ports && consumer_.count > 0) {  // whatever the next cycle's parity, its consumer looks here
      producer_.staged_ports->mark(0, producer_.port);
      producer_.staged_ports->mark(1, producer_.port);
    }
  }
  // Nothing staged and nothing visible.
  bool idle() const { return consumer_.count == 0 && halves_[0].count == 0 && halves_[1].count == 0; }

 private:
  // Each part on a cache line of its own, and each line written by one side
  // only within a cycle: producer and consumer run on different threads in
  // the same cycle. The parts of a cycle's work share lines: a producer's
  // cycle touches its own line and the half of its parity (stage, room), a
  // consumer's its own line and the half of the other parity (receive,
  // publish). No allocation after construction.
  struct alignas(64) ProducerSide {  // written by the producer
    uint64_t staged_total = 0;       // items ever staged
    size_t capacity = 1;
    const PortClock* clock = nullptr;
    StagedPorts* staged_ports = nullptr;  // set once
    uint32_t port = 0;
  };
  // Half p: what the producer stages in cycles of parity p, and the pop count
  // the consumer publishes at the end of cycles of parity p ^ 1 (which the
  // producer reads in cycles of parity p). In a cycle of parity p only the
  // producer touches it; in one of parity p ^ 1 only the consumer.
  struct alignas(64) Half {
    std::vector<T> items;
    size_t count = 0;
    uint64_t pops = 0;
  };
  struct alignas(64) ConsumerSide {  // written by the consumer: the visible items
    std::vector<T> ring;
    size_t head = 0, count = 0;
    uint64_t popped_total = 0;
    uint64_t published[2] = {0, 0};    // what publish_pops() last wrote to each half's pops
    size_t capacity = 1;               // (the producer's, copied: each side reads its own line)
    const PortClock* clock = nullptr;
  };

  unsigned producer_parity() const { return unsigned(producer_.clock->cycle & 1); }
  unsigned consumer_parity() const { return unsigned(consumer_.clock->cycle & 1); }
  void take_staged(unsigned p) {
    Half& h = halves_[p];
    if (h.count == 0) return;  // (no write: the line stays shared with the producer)
    for (size_t i = 0; i < h.count; ++i) {
      size_t tail = consumer_.head + consumer_.count;
      if (tail >= consumer_.capacity) tail -= consumer_.capacity;
      consumer_.ring[tail] = h.items[i];
      ++consumer_.count;
    }
    h.count = 0;
  }

  ProducerSide producer_;
  Half halves_[2];
  ConsumerSide consumer_;
};

}  // namespace lockstep
