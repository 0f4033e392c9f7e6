#pragma once
// Perfect memory behind the MemoryModel interface: every global/local access
// of an SM takes sm.perfect_memory_latency cycles in the SM's own LD/ST unit
// (an SM without memory attached, core/sm.h), so below the SMs there is
// nothing: no units, no ports, never anything in flight, no events, all
// statistics zero. MemcpyHtoD has nothing to fill.
#include "memsys/memory_model.h"

namespace lockstep {

class FixedLatencyMemory final : public MemoryModel {
 public:
  uint32_t units() const override { return 0; }
  void run_unit(uint32_t unit, const MemoryEdge* edges, size_t count) override;
  void begin_cycle(uint64_t) override {}
  void settle_ports() override {}
  LatchedQueue<MemPacket>* sm_reply_port(uint32_t) override { return nullptr; }
  void copy_to_device(uint64_t, uint64_t) override {}
  void invalidate_caches() override {}
  bool idle() const override { return true; }
  uint64_t next_event_when_idle(uint64_t) const override { return UINT64_MAX; }
  MemoryStats take_stats(uint32_t) override { return MemoryStats{}; }
  MemoryInstanceStats take_instance_stats(uint32_t) override { return MemoryInstanceStats{}; }
};

}  // namespace lockstep
