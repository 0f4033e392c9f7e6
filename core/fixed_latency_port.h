#pragma once
// Perfect memory below the SM: every global, local, texture and atomic
// access completes a fixed latency (sm.perfect_memory_latency) after issue,
// with no limit on accesses in flight. An implementation of the SM memory
// port (core/sm_memory_port.h).
#include <cstdint>

#include "core/l1_stats.h"
#include "core/sm_memory_access.h"

namespace lockstep {

class FixedLatencyPort {
 public:
  explicit FixedLatencyPort(uint32_t latency) : latency_(latency) {}

  void start_kernel(uint32_t /*l1_kb*/, uint8_t /*stat_slot*/) {}
  bool can_accept() const { return true; }
  bool has_work() const { return false; }
  uint64_t access(const SmMemoryAccess& a) { return a.now + latency_; }
  template <typename Done>
  void cycle(uint64_t /*now*/, Done&& /*done*/) {}
  L1Stats take_stats() { return L1Stats(); }

 private:
  uint32_t latency_ = 0;
};

}  // namespace lockstep
