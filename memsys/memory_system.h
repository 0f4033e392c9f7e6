#pragma once
// The memory side below the SMs' L1s: the request crossbar (SM clusters ->
// L2 slices), the L2 slices (l2.subpartitions per memory partition), one
// DRAM channel per partition with its return path, the reply crossbar, and
// the copy engine. It runs on its own clocks (interconnect, L2, DRAM).
//
// It is built of units that meet only at latched ports (memsys/latched_queue.h),
// so each unit can run on any thread, beside the SMs and beside the other
// units, and give the same result:
//   unit 0      the request crossbar: SM request ports -> crossbar -> slice inboxes
//   unit 1      the reply crossbar:   slice outboxes -> crossbar -> SM reply ports
//   unit 2 + c  memory partition c:   its L2 slices and DRAM channel c
// Per core cycle the engine hands every unit the memory-side clock edges
// that fall after the previous core edge and no later than this one, in time
// order (parallel/clock_domains.h); each unit acts on the edges of its own
// clocks. Nothing a unit stages is visible to another unit, or to an SM,
// before the next core cycle: each unit takes in its input ports at the start
// of its cycle and publishes its pops at the end (LatchedQueue), and the
// engine does the same for each SM's reply port around the SM's tick.
//
// Per interconnect edge, request crossbar: one packet per cluster from its
// SMs' ports (round robin) into the crossbar; the crossbar cycles; packets
// that reached an output move to that slice's inbox while it has room.
// Reply crossbar: one packet per slice from its outbox into the crossbar; the
// crossbar cycles; packets at an output move to their SM's reply port.
// Per L2 edge, each slice of a partition: inbox -> slice, the slice cycles,
// one reply -> outbox. Per DRAM edge: slice misses -> channel (the
// partition's slices round robin), the channel cycles, read data -> return
// delay line (dram.extra_latency) -> slice fill.
#include <cstdint>
#include <memory>
#include <vector>

#include "memsys/address_map.h"
#include "memsys/crossbar.h"
#include "memsys/dram_channel.h"
#include "memsys/l2_slice.h"
#include "memsys/heap_separator.h"
#include "memsys/latched_queue.h"
#include "memsys/ring_queue.h"
#include "memsys/mem_packet.h"
#include "memsys/memory_model.h"
#include "configs/spec/memory_spec.h"
#include "memsys/memory_stats.h"

namespace lockstep {

// How the memory side's clocks relate to the core clock (the engine's clocks).
struct MemoryTiming {
  uint32_t dram_extra_cycles = 0;  // dram.extra_latency in DRAM cycles
  uint32_t icnt_edges_per_core_cycle = 1;  // at most, rounded up
  uint32_t l2_edges_per_core_cycle = 1;    // at most, rounded up
};

class MemorySystem : public MemoryModel {
 public:
  static constexpr uint32_t kRequestNetUnit = 0;
  static constexpr uint32_t kReplyNetUnit = 1;
  static constexpr uint32_t kFirstPartitionUnit = 2;

  // `separator` (optional): called between the SMs' ports (memsys/heap_separator.h).
  MemorySystem(const MemorySpec& spec, uint32_t sms, uint32_t sms_per_cluster, const MemoryTiming& timing,
               HeapSeparator* separator = nullptr);
  ~MemorySystem() override;

  // The SM's side of its ports: it stages requests and pops replies (the
  // engine calls the reply port's receive() and publish_pops() around the
  // SM's tick, every cycle).
  LatchedQueue<MemPacket>& request_port(uint32_t sm) { return to_memory_[sm]; }
  LatchedQueue<MemPacket>& reply_port(uint32_t sm) { return from_memory_[sm]; }
  // Engine, between cycles: the core cycle about to run (the ports' parity).
  void begin_cycle(uint64_t core_cycle) override { port_clock_.cycle = core_cycle; }
  // Engine, between cycles with everything idle, before a jump in time: every
  // port's pops count as room whatever the parity of the next cycle run.
  void settle_ports() override;
  LatchedQueue<MemPacket>* sm_reply_port(uint32_t sm) override { return &from_memory_[sm]; }
  StagedPorts* sm_reply_stages() override { return replies_staged_.get(); }

  // Units (see above) and their work in one core cycle: `edges` are the
  // memory-side edges of that cycle, in time order. Different units may run
  // at the same time on different threads.
  uint32_t units() const override { return kFirstPartitionUnit + uint32_t(channels_.size()); }
  void run_unit(uint32_t unit, const MemoryEdge* edges, size_t count) override;
  // The same for units [first, last), except that an asleep or dozing
  // partition with nothing to do in this cycle (no packet arrived, no pops
  // to publish, no channel event due, no request ready in its slices' tag
  // pipelines) is not run at all: its edges would only move its clocks,
  // which nothing reads before it runs edges again (PartitionState).
  void run_units(uint32_t first, uint32_t last, const MemoryEdge* edges, size_t count) override;

  // Copy engine (MemcpyHtoD): the copied bytes land in the L2 as written data.
  void copy_to_device(uint64_t addr, uint64_t bytes) override;
  void invalidate_caches() override;

  // Nothing in flight anywhere below the SMs (ports included), between cycles.
  bool idle() const override { return l2_wake() == UINT64_MAX; }
  // Nothing in flight but requests in dozing partitions' tag pipelines: the
  // first L2 cycle one of them is ready (UINT64_MAX: none, idle()); else 0.
  uint64_t l2_wake() const override;
  // The same by asking every port and block, for tests (idle() tells it from
  // the units' own summaries: the partitions asleep, the ports' stage marks).
  bool every_block_idle() const;
  // With l2_wake() != 0: the first DRAM cycle after `dram_now` (the last
  // DRAM edge run) at which a unit can change state (a refresh falls due);
  // UINT64_MAX when none ever will. Until then and l2_wake() every edge of
  // every unit is a no-op.
  uint64_t next_event_when_idle(uint64_t dram_now) const override;
  // The memory side's counters for one statistics slot, per block instance
  // ("icnt.request", "icnt.reply", "l2.slice<id>" by id, "dram.channel<id>"
  // by id), and reset.
  MemoryInstanceStats take_instance_stats(uint32_t slot) override;
  // The same summed over the instances (take_instance_stats(slot).total()), and reset.
  MemoryStats take_stats(uint32_t slot) override;

  const AddressMap& address_map() const { return map_; }
  uint32_t slices() const { return uint32_t(slices_.size()); }

 private:
  struct DelayedFill {
    uint64_t ready;  // DRAM cycle the data reaches the slice
    DramRequest request;
  };
  // State of one partition unit, on a cache line of its own (units run on different threads).
  struct alignas(64) PartitionState {
    // The partition's latest L2 and DRAM edges run. run_units skips an
    // asleep or dozing partition's idle cycles, so then they may lag;
    // nothing reads them before it runs edges again: sleep_through and the
    // cycles set them first, a woken partition cannot fall asleep in the
    // cycle it woke (its packet is queued), and a fill needs a DRAM request
    // sent after waking (a dozing partition's channel holds none).
    uint64_t l2_now = 0;
    uint64_t dram_now = 0;
    uint64_t channel_wake = 0;   // not awake: the channel's next_event (its first cycle that is more than time passing)
    uint64_t in_slices = 0;      // requests its slices accepted and have not replied to (each gets one reply)
    uint32_t channel_rr = 0;     // the subpartition after the last one the channel served
    uint32_t moved = 0;          // requests its slices took and replies they gave in its last cycle
    // After its last cycle (partition_wake): 0, awake (it has work);
    // UINT64_MAX, asleep (nothing queued anywhere in it); else dozing (all
    // it holds is requests in its slices' tag pipelines, the first ready at
    // this L2 cycle). Asleep or dozing, until a packet reaches an inbox or
    // (dozing) the wake cycle comes, its edges only keep time.
    uint64_t wake = UINT64_MAX;
    bool awake() const { return wake == 0; }
    bool asleep() const { return wake == UINT64_MAX; }
    bool pops_unpublished = false;  // its inboxes' pops of the last awake cycle wait for the cycle after
    RingQueue<DelayedFill> returning;  // read data on its way back (dram.extra_latency), at most dram.return_queue
  };
  uint32_t cluster_of(uint32_t sm) const { return cluster_of_sm_[sm]; }

  void request_net_cycle(uint64_t cycle);
  void inject_request(uint32_t cluster, uint64_t cycle);
  void reply_net_cycle(uint64_t cycle);
  void run_partition(uint32_t partition, const MemoryEdge* edges, size_t count);
  // Whether run_partition would do more than keep the partition's time in
  // a cycle whose last L2 and DRAM edges are `last.l2` (0: none; no
  // partition waits for L2 edge 0) and `last.dram` (UINT64_MAX: none).
  struct LastEdges {
    uint64_t l2 = 0, dram = UINT64_MAX;
  };
  bool partition_has_work(uint32_t partition, const LastEdges& last) const;
  // The partition's inboxes staged into in the previous cycle, a bit per subpartition.
  uint64_t inbox_marks(uint32_t partition) const;
  // An asleep partition's edges: its clocks advance, its channel cycles only at its next_event (a refresh).
  void sleep_through(uint32_t partition, const MemoryEdge* edges, size_t count);
  void partition_l2_cycle(uint32_t partition, uint64_t cycle);
  void partition_dram_cycle(uint32_t partition, uint64_t cycle);
  // The partition's PartitionState::wake after its cycle: UINT64_MAX when
  // nothing is queued anywhere in it (its inboxes after receive, its slices,
  // the channel, the DRAM return queue); when its inboxes, return queue and
  // channel are empty and its slices hold only requests in their tag
  // pipelines, the first L2 cycle one of those is ready; else 0.
  uint64_t partition_wake(uint32_t partition) const;
  // Receives the partition's inboxes that were staged into in the previous
  // cycle (inbox_stages_); whether there was one.
  bool receive_inboxes(uint32_t partition);
  void publish_inbox_pops(uint32_t partition);
  // An asleep or dozing partition's inbox pops of its last awake cycle,
  // published in the cycle after too (once; nothing when already done).
  void publish_last_pops(uint32_t partition);

  // A crossbar unit's input ports: take in what was staged in the previous
  // cycle / publish this cycle's pops (LatchedQueue).
  void receive_inputs(uint32_t unit);
  void publish_input_pops(uint32_t unit);

  const MemorySpec& spec_;
  const uint32_t subs_;  // l2.subpartitions: slices per partition
  const uint32_t sms_per_cluster_;
  std::vector<uint32_t> cluster_of_sm_;  // sm / sms_per_cluster_, looked up (the crossbar units need it per packet)
  const MemoryTiming timing_;
  AddressMap map_;
  PortClock port_clock_;  // read by every port; written only between cycles
  std::vector<LatchedQueue<MemPacket>> to_memory_;    // per SM: request crossbar's input port
  std::vector<LatchedQueue<MemPacket>> from_memory_;  // per SM: reply crossbar's output port
  std::vector<LatchedQueue<MemPacket>> to_slice_;     // per slice: request crossbar -> slice
  // The request crossbar's stages into to_slice_: slice p * subpartitions + s
  // is port p * inbox_stride_ + s, so that no partition's ports straddle a word.
  std::unique_ptr<StagedPorts> inbox_stages_;
  uint32_t inbox_stride_ = 1;  // bit_ceil(l2.subpartitions), at most 16: divides 64
  uint64_t inbox_mask_ = 1;    // a partition's ports from its first: subpartitions low bits
  std::vector<LatchedQueue<MemPacket>> from_slice_;   // per slice: slice -> reply crossbar
  // Request crossbar unit.
  std::unique_ptr<Crossbar> request_net_;             // clusters -> slices
  std::vector<uint32_t> cluster_rr_;                  // per cluster: the SM after the last to inject
  std::vector<LineLocator> cluster_locators_;         // per cluster: its requests' slices, a chunk's hash kept
  std::vector<uint64_t> requesting_sms_;              // bit set: SMs holding requests after receive_inputs
  std::vector<uint64_t> requested_before_;            // requesting_sms_ of the previous cycle
  std::unique_ptr<StagedPorts> sms_staged_;           // the SMs' stages into to_memory_
  std::unique_ptr<StagedPorts> replies_staged_;       // the reply crossbar's stages into from_memory_
  // Reply crossbar unit.
  alignas(64) std::unique_ptr<Crossbar> reply_net_;   // slices -> clusters
  std::vector<uint64_t> replying_slices_;             // bit set: slices holding replies after receive_inputs
  std::vector<uint64_t> replied_before_;              // replying_slices_ of the previous cycle
  std::unique_ptr<StagedPorts> slices_staged_;        // the slices' stages into from_slice_
  // Partition units.
  std::vector<std::unique_ptr<L2Slice>> slices_;
  std::vector<std::unique_ptr<DramChannel>> channels_;
  std::vector<PartitionState> partitions_;
};

}  // namespace lockstep
