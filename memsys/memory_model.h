#pragma once
// What the GPU and its cycle engine need of the memory below the SMs' ports,
// whatever models it: the cycle model (memsys/memory_system.h: crossbars, L2
// slices, DRAM channels) or fixed latency (memsys/fixed_latency_memory.h).
// Each SM is hooked to its model when the model is built (parallel/memory_models.h).
//
// The model's work in a core cycle is split in units that meet only at
// latched ports, so that different units may run at the same time on
// different threads. A model without units has no work of its own.
#include <cstddef>
#include <cstdint>

#include "memsys/latched_queue.h"
#include "memsys/staged_ports.h"
#include "memsys/mem_packet.h"
#include "memsys/memory_stats.h"

namespace lockstep {

// One edge of a memory-side clock.
enum class MemoryClock : uint8_t { kIcnt = 0, kL2, kDram };
struct MemoryEdge {
  MemoryClock clock;
  uint64_t cycle;  // the cycle number in its own domain
};

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;

  // Units and their work in one core cycle: `edges` are the memory-side
  // clock edges of that cycle, in time order.
  virtual uint32_t units() const = 0;
  virtual void run_unit(uint32_t unit, const MemoryEdge* edges, size_t count) = 0;
  // Units [first, last) in order: each one's work, as run_unit gives it; a
  // model may skip a unit whose work in this cycle would change nothing that
  // is read before the unit runs again.
  virtual void run_units(uint32_t first, uint32_t last, const MemoryEdge* edges, size_t count) {
    for (uint32_t u = first; u < last; ++u) run_unit(u, edges, count);
  }

  // Between cycles: the core cycle about to run (the ports' parity).
  virtual void begin_cycle(uint64_t core_cycle) = 0;
  // Between cycles with everything idle, before a jump in time: every port's
  // pops count as room whatever the parity of the next cycle run.
  virtual void settle_ports() = 0;
  // The port SM `sm` takes its replies from (null: none). Around the SM's
  // tick, on the thread that ticks it, every cycle, the engine calls its
  // receive() (the replies staged in the previous cycle) and publish_pops().
  virtual LatchedQueue<MemPacket>* sm_reply_port(uint32_t sm) = 0;
  // The marks of the SMs' reply ports, one bit per SM (memsys/staged_ports.h),
  // when the ports report their stages (null: they do not; receive on every one).
  virtual StagedPorts* sm_reply_stages() { return nullptr; }

  // Copy engine (MemcpyHtoD): the copied bytes land in the memory as written data.
  virtual void copy_to_device(uint64_t addr, uint64_t bytes) = 0;
  // Between kernels, with idle(): every memory-side cache loses its contents
  // (a profiler's flush before a kernel, --cache-control all).
  virtual void invalidate_caches() = 0;

  // Nothing in flight anywhere below the SMs (ports included).
  virtual bool idle() const = 0;
  // Between cycles: 0 when a unit may change state in the next cycle; else
  // the first L2 cycle in which one may, as far as what it holds goes (a
  // request waiting out a fixed latency), UINT64_MAX when it holds nothing
  // (idle()). The DRAM clock's events are next_event_when_idle's.
  virtual uint64_t l2_wake() const { return idle() ? UINT64_MAX : 0; }
  // With l2_wake() != 0: the first DRAM cycle after `dram_now` (the last
  // DRAM edge run) at which a unit can change state; UINT64_MAX when none ever will.
  virtual uint64_t next_event_when_idle(uint64_t dram_now) const = 0;
  // The model's counters for one statistics slot, and reset.
  virtual MemoryStats take_stats(uint32_t slot) = 0;
  // The same per block instance (MemoryInstanceStats: its total() is what
  // take_stats() gives), and reset; empty for a model without blocks.
  virtual MemoryInstanceStats take_instance_stats(uint32_t slot) = 0;
};

}  // namespace lockstep
