#pragma once
// The memory side below the SMs' L1s: the request crossbar (SM clusters ->
// L2 slices), the L2 slices (l2.subpartitions per memory partition), one
// DRAM channel per partition with its return path, the reply crossbar, and
// the copy engine. It runs on its own clocks (interconnect, L2, DRAM): the
// engine calls icnt_cycle / l2_cycle / dram_cycle at each edge, in time
// order. It meets the SMs only at the per-SM latched ports (request_port,
// reply_port), which the engine commits after every core cycle; everything
// inside runs on one thread in a fixed order, so the memory side gives the
// same result whichever thread runs it and whenever the SMs run.
//
// Per interconnect edge: SM ports -> request crossbar inputs (one packet per
// cluster, the cluster's SMs round robin), both crossbars advance, reply
// crossbar outputs -> SM reply ports. Per L2 edge: request crossbar outputs
// -> slices, slices cycle, slice replies -> reply crossbar. Per DRAM edge:
// slice misses -> channel (the partition's slices round robin), channel
// cycles, read data -> return delay line (dram.extra_latency) -> slice fill.
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "memsys/address_map.h"
#include "memsys/crossbar.h"
#include "memsys/dram_channel.h"
#include "memsys/l2_slice.h"
#include "memsys/latched_queue.h"
#include "memsys/mem_packet.h"
#include "memsys/memory_spec.h"
#include "memsys/memory_stats.h"

namespace lockstep {

class MemorySystem {
 public:
  // `dram_extra_cycles`: dram.extra_latency converted to DRAM cycles by the caller.
  MemorySystem(const MemorySpec& spec, uint32_t sms, uint32_t sms_per_cluster, uint32_t dram_extra_cycles);
  ~MemorySystem();

  // The SM's side of its ports: it stages requests and pops replies.
  LatchedQueue<MemPacket>& request_port(uint32_t sm) { return to_memory_[sm]; }
  LatchedQueue<MemPacket>& reply_port(uint32_t sm) { return from_memory_[sm]; }
  // Engine, after every core cycle: publish what both sides staged (SM id order).
  void commit_ports();

  void icnt_cycle(uint64_t cycle);
  void l2_cycle(uint64_t cycle);
  void dram_cycle(uint64_t cycle);

  // Copy engine (MemcpyHtoD): the copied bytes land in the L2 as written data.
  void copy_to_device(uint64_t addr, uint64_t bytes);

  // Nothing in flight anywhere below the SMs (ports included).
  bool idle() const;
  // The memory side's counters for one statistics slot, summed in block order
  // (crossbars, slices by id, channels by id), and reset.
  MemoryStats take_stats(uint32_t slot);

  const AddressMap& address_map() const { return map_; }
  uint32_t slices() const { return uint32_t(slices_.size()); }

 private:
  struct DelayedFill {
    uint64_t ready;  // DRAM cycle the data reaches the slice
    DramRequest request;
  };
  uint32_t cluster_of(uint32_t sm) const { return sm / sms_per_cluster_; }

  const MemorySpec& spec_;
  const uint32_t sms_per_cluster_;
  const uint32_t dram_extra_cycles_;
  AddressMap map_;
  std::vector<LatchedQueue<MemPacket>> to_memory_;    // per SM
  std::vector<LatchedQueue<MemPacket>> from_memory_;  // per SM
  std::vector<uint32_t> cluster_rr_;                  // per cluster: the SM after the last to inject
  std::unique_ptr<Crossbar> request_net_;             // clusters -> slices
  std::unique_ptr<Crossbar> reply_net_;               // slices -> clusters
  std::vector<std::unique_ptr<L2Slice>> slices_;
  std::vector<std::unique_ptr<DramChannel>> channels_;
  std::vector<uint32_t> channel_rr_;                  // per channel: the subpartition after the last served
  std::vector<std::deque<DelayedFill>> returning_;    // per channel
  uint64_t icnt_now_ = 0, l2_now_ = 0;
  uint64_t in_ports_ = 0;                             // requests visible in SM ports (skip scanning when 0)
};

}  // namespace lockstep
