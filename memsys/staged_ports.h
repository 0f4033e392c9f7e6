#pragma once
// Which of a set of latched ports (memsys/latched_queue.h) had something
// staged, per parity of the core cycle it was staged in: one bit per port.
// A consumer of many ports, most of them empty in most cycles, then calls
// receive() only on the ports marked in the previous cycle and on those it
// still holds packets in, instead of on every port every cycle.
//
// Producers mark during their cycle (several threads: atomic OR); the
// consumer takes the other parity's marks during its cycle, which no producer
// touches in that cycle. The engine's hand-over between cycles orders the two.
// What is received depends only on what was staged: any thread count gives
// the same result.
//
// Ports with one producer and several consumers (the reply crossbar's ports
// to the SMs, read by clusters on any thread; the request crossbar's ports
// to the L2 slices, read by the partitions) use the read-only side
// instead: the producer clears a parity's marks at the start of its cycle of
// that parity (they are the marks of two cycles before, which the consumers
// read in the cycle between) and the consumers only peek, so that consumers
// on different threads never write the word they share.
#include <atomic>
#include <cstdint>
#include <vector>

namespace lockstep {

class StagedPorts {
 public:
  explicit StagedPorts(size_t ports) : words_((ports + 63) / 64), marks_{std::vector<std::atomic<uint64_t>>(words_), std::vector<std::atomic<uint64_t>>(words_)} {}

  size_t words() const { return words_; }
  // Producer: something was staged into `port` in a cycle of `parity`.
  void mark(unsigned parity, uint32_t port) {
    marks_[parity][port / 64].fetch_or(uint64_t(1) << (port % 64), std::memory_order_relaxed);
  }
  // Consumer: word `word` of the ports marked in cycles of `parity`, cleared.
  uint64_t take(unsigned parity, size_t word) { return take(parity, word, ~uint64_t(0)); }
  // Consumer of some of a word's ports (several consumers may share a word,
  // each taking its own bits): the bits of `mask` in word `word` of the
  // ports marked in cycles of `parity`, cleared.
  uint64_t take(unsigned parity, size_t word, uint64_t mask) {
    std::atomic<uint64_t>& m = marks_[parity][word];
    if ((m.load(std::memory_order_relaxed) & mask) == 0) return 0;
    return m.fetch_and(~mask, std::memory_order_relaxed) & mask;
  }
  // Single producer, at the start of its cycle of `parity`, before it marks:
  // forgets that parity's marks (each word written only when set).
  void clear(unsigned parity) {
    for (std::atomic<uint64_t>& m : marks_[parity])
      if (m.load(std::memory_order_relaxed) != 0) m.store(0, std::memory_order_relaxed);
  }
  // Consumer that only reads (the producer clears): the bits of `mask` in
  // word `word` of the ports marked in cycles of `parity`.
  uint64_t peek(unsigned parity, size_t word, uint64_t mask) const {
    return marks_[parity][word].load(std::memory_order_relaxed) & mask;
  }
  // Between cycles: some port was marked in a cycle of `parity` and not taken since.
  bool any(unsigned parity) const {
    for (const std::atomic<uint64_t>& m : marks_[parity])
      if (m.load(std::memory_order_relaxed) != 0) return true;
    return false;
  }

 private:
  size_t words_;
  std::vector<std::atomic<uint64_t>> marks_[2];
};

}  // namespace lockstep
