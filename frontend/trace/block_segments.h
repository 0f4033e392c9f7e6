#pragma once
// The later segments of blocks handed out as their first segment (a long
// block stored in segments, see BlockTrace). Thread-safe: several SMs'
// threads take segments at once; each segment of a block is taken once, in
// order (segment 1, then 2, ...), by whoever holds the block.
//
// Taking never throws: the thread that takes may be a simulation worker, with
// no way to stop the run. A segment that cannot be read (a corrupt or
// unreadable trace) comes back with no instructions, the fault is kept, and
// the one who opened the blocks checks failed() and stops the run with
// failure() as its error.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "frontend/trace/block_trace.h"

namespace lockstep {

class BlockSegments {
 public:
  virtual ~BlockSegments() = default;
  // Overwrites `out` with segment `segment` (>= 1) of block `ordinal`.
  virtual void take(uint32_t ordinal, uint32_t segment, BlockTrace& out) noexcept = 0;

  bool failed() const { return failed_.load(std::memory_order_acquire); }
  std::string failure() const {
    std::lock_guard lock(fault_mu_);
    return fault_;
  }
  // Keeps the first fault.
  void fail(const std::string& what) noexcept {
    try {
      std::lock_guard lock(fault_mu_);
      if (fault_.empty()) fault_ = what;
    } catch (...) {
    }
    failed_.store(true, std::memory_order_release);
  }

 private:
  std::atomic<bool> failed_{false};
  mutable std::mutex fault_mu_;
  std::string fault_;
};

}  // namespace lockstep
