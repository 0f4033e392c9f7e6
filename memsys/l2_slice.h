#pragma once
// One L2 slice (memory sub-partition): a sectored, write-back, LRU cache of
// 128 B lines and 32 B sectors with MSHRs, an atomic unit and its queues
// (papers/volta-memory-system.txt §III-B, accel-sim.txt "Write-Aware Cache
// Design"). Time is in L2 clock cycles. Every cache decision (hit, fetch,
// write-validate, victims to write back) is the L2CachePolicy's
// (l2_cache_policy.h); the slice adds the queues, MSHRs, timing and room checks.
//
// Path of a request, one per cycle at each step:
//   accept() -> tag pipeline (l2.latency cycles; the ROP stage of GPGPU-Sim)
//   -> input queue (l2.icnt_to_l2_queue) -> tag lookup at its head:
//   read    readable sector (valid, full byte mask): reply now ("hit").
//           Otherwise (missing, or only partly written: "lazy fetch on
//           read") one DRAM read per sector: merge into the sector's MSHR
//           entry if one is outstanding, else allocate an entry and queue
//           the read. The data merges under the written bytes on fill.
//   write   write-validate: no DRAM read; the line is allocated if absent
//           (evicting the LRU line: one write-back per dirty sector), the
//           bytes are marked present and dirty; kWriteAck now.
//   atomic  needs a readable sector (fetched like a read if not), then the
//           atomic unit (l2.atomic_latency) marks the bytes written and dirty
//           and replies kAtomicReply.
// A request that cannot proceed (MSHR entry full or none free, miss queue
// or reply queue full) stays at the head; each such cycle counts one
// reservation_fails (L2SliceStats). Misses and write-backs go through the miss queue
// (l2.miss_queue) to the DRAM request queue (l2.l2_to_dram_queue). DRAM data
// (l2.dram_to_l2_queue) fills one sector per cycle, allocating the line on
// fill; its waiters reply one per cycle in arrival order. Write-backs of a
// fill's victim enter the miss queue even when it is full (it may exceed
// l2.miss_queue by one line's sectors): a fill must never wait for DRAM,
// which may itself wait for the fill queue to drain.
//
// With a hit accepted at cycle t and nothing queued, has_reply(t + latency) is
// the first true. The cache indexes slice-local addresses (AddressMap) so
// every set is used whatever the channel hash; packets, MSHRs and DRAM
// requests carry global addresses.
#include <array>
#include <cstdint>
#include <vector>

#include "memsys/address_map.h"
#include "memsys/dram_request.h"
#include "memsys/mem_packet.h"
#include "configs/spec/memory_spec.h"
#include "memsys/l2_slice_stats.h"
#include "memsys/mshr_table.h"
#include "memsys/ring_queue.h"
#include "memsys/l2_cache_policy.h"

namespace lockstep {

class L2Slice {
 public:
  L2Slice(uint32_t id, const L2Spec& spec, const AddressMap& map);

  uint32_t id() const { return id_; }

  // From the request crossbar: at most one request per L2 cycle, while there is room.
  bool can_accept() const;
  void accept(const MemPacket& request, uint64_t now);

  // One L2 clock.
  void cycle(uint64_t now);

  // To the DRAM channel: reads and dirty write-backs, in the order queued.
  bool has_dram_request() const { return !to_dram_.empty(); }
  const DramRequest& dram_request() const { return to_dram_.front(); }
  void pop_dram_request() { to_dram_.pop_front(); }

  // From the DRAM channel: the data of a read.
  bool can_fill() const { return fills_.size() < spec_.dram_to_l2_queue; }
  void fill(const DramRequest& done, uint64_t now);

  // To the reply crossbar, in order.
  bool has_reply(uint64_t now) const { return !replies_.empty() && replies_.front().ready <= now; }
  const MemPacket& reply() const { return replies_.front().packet; }
  void pop_reply() { replies_.pop_front(); }

  // Copy engine (MemcpyHtoD): bytes [addr, addr + bytes) of one sector land
  // in the L2 as written data (present, dirty) at once, outside the timing.
  // Victims' write-backs are dropped: the copy runs before the kernel and
  // its DRAM traffic is not timed (the evicted data is in DRAM as far as
  // the kernel is concerned).
  void warm(uint64_t addr, uint32_t bytes);
  // The same for the sectors `sectors` of the line at `line_addr` (a global
  // address) with one lookup, byte_masks[s] the bytes of sector s
  // (for_each_copied_line's form): as warm() of each sector in turn.
  void warm_line(uint64_t line_addr, uint32_t sectors, const uint32_t* byte_masks) {
    policy_.warm_line(map_.slice_local(line_addr), sectors, byte_masks);
  }
  // Between kernels, with idle(): the cache loses every line (a profiler's
  // cache flush; its write-backs are not timed, as the copy engine's are not).
  void invalidate() { policy_.invalidate(); }

  // Nothing queued, in the pipeline or outstanding.
  bool idle() const { return quiet_until() == UINT64_MAX; }
  // The first L2 cycle at which cycle() may do more than keep time: the
  // head of the tag pipeline's ready cycle when the pipeline holds all the
  // slice holds (UINT64_MAX: nothing at all), else 0. (cycle() moves the
  // pipeline's head on from its ready cycle; until then, with every other
  // queue empty, it finds nothing to do.)
  uint64_t quiet_until() const {
    if (!(replies_.empty() && input_.empty() && released_.empty() && atomic_unit_.empty() && fills_.empty() &&
          miss_queue_.empty() && to_dram_.empty() && mshrs_.empty()))
      return 0;
    return pipeline_.empty() ? UINT64_MAX : pipeline_.front().ready;
  }

  const L2SliceStats& stats(uint32_t slot) const { return stats_[slot]; }
  L2SliceStats take_stats(uint32_t slot);

  // For tests and statistics.
  const SectorCache& cache() const { return policy_.cache(); }
  uint32_t outstanding_sectors() const { return mshrs_.size(); }

 private:
  struct Timed {
    uint64_t ready;  // L2 cycle the packet may move on
    MemPacket packet;
  };

  // Tag lookup of the request at the head of the input queue; false when it must wait.
  bool lookup(const MemPacket& request, uint64_t now);
  // Read or atomic that needs the sector from DRAM: merge or allocate an MSHR entry.
  bool fetch(const MemPacket& request);
  // Install the oldest DRAM fill and release its waiters.
  void process_fill(uint64_t now);
  // Write-validate the bytes of `mask` into the sector of global `addr`,
  // allocating the line; queues the victim's write-backs.
  void write_bytes(uint64_t addr, uint32_t mask, uint8_t stat_slot);
  // Queues one DRAM write per dirty sector of a victim (slice-local addresses).
  void queue_writebacks(const VictimWriteBacks& victim, uint8_t stat_slot);
  // The atomic unit starts on a readable sector.
  void start_atomic(const MemPacket& request, uint64_t now);
  DramRequest dram_request_for(uint64_t global_sector, bool write, uint8_t stat_slot) const;
  // The slice-local address of a request's (or a fill's) global address: a
  // locator per path keeps its last interleave chunk's partition hash, which
  // the head's prefetch, its lookup and the sectors of one line share.
  uint64_t request_local(uint64_t addr) { return request_locator_.locate(addr).local; }
  uint64_t fill_local(uint64_t addr) { return fill_locator_.locate(addr).local; }

  const uint32_t id_;
  const L2Spec spec_;
  const AddressMap& map_;
  LineLocator request_locator_;
  LineLocator fill_locator_;
  L2CachePolicy policy_;          // the cache, indexed by slice-local addresses
  MshrTable<MemPacket> mshrs_;    // keyed by global sector address

  // Rings sized from the spec's bounds (ring_queue.h): no allocation per cycle.
  RingQueue<Timed> pipeline_;    // accepted, in the tag pipeline
  RingQueue<MemPacket> input_;   // waiting for the tag lookup
  RingQueue<DramRequest> miss_queue_;  // may exceed l2.miss_queue by a victim's write-backs
  RingQueue<DramRequest> to_dram_;
  RingQueue<DramRequest> fills_;
  RingQueue<MemPacket> released_;  // MSHR waiters whose data arrived, replying in order
  RingQueue<Timed> atomic_unit_;
  RingQueue<Timed> replies_;
  std::vector<MemPacket> release_buffer_;  // reused by process_fill
  bool accepted_this_cycle_ = false;

  std::array<L2SliceStats, kStatSlots> stats_{};
};

}  // namespace lockstep
