#pragma once
// Where each memory access of the abstract model is served, and what it
// costs. Two pieces, so that a cache model can replace the first alone:
//   CacheHitLevels   the level (L1 / L2 / DRAM) of each 128 B line an
//                    instruction touches, asked in trace order per kernel,
//                    with the SM its block runs on, and the DRAM sectors it
//                    moves (reads, and the write-backs of the dirty lines it
//                    evicts). Now: the cycle model's cache rules without
//                    time, bounded by capacity: per SM an L1D tag array
//                    (core/l1_cache_policy.h's geometry and carve-out: write-
//                    through, allocate on fill), per L2 slice the L2's
//                    write-back, write-validate policy (memsys/
//                    l2_cache_policy.h) under the address map's slice
//                    hashing; a MemcpyHtoD warms the L2 as the cycle
//                    model's copy engine does. A cache-functional memory
//                    model plugs in here by answering access() for the same
//                    accesses.
//   MemoryLatencies  fixed per-level latencies in core cycles, derived from
//                    the GPU config (memory_latencies()), and what one
//                    sector costs an L2 slice and a DRAM channel; per kernel
//                    (share_bandwidth()) what it costs one SM's queue.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "configs/spec/gpu_spec.h"
#include "memsys/address_map.h"
#include "memsys/l2_cache_policy.h"
#include "memsys/sector_cache.h"

namespace lockstep {

enum class HitLevel : uint8_t { kL1 = 0, kL2, kDram };

struct MemoryLatencies {
  uint32_t l1_hit = 0;
  uint32_t l2_hit = 0;
  uint32_t dram = 0;
  // Core cycles one 32 B sector occupies one L2 slice / one DRAM channel, in 1/256 cycle.
  uint32_t slice_sector_cost = 0;
  uint32_t channel_sector_cost = 0;
  // The same for one SM's queue in the kernel being run (share_bandwidth()).
  uint32_t l2_sector_cost = 0;
  uint32_t dram_sector_cost = 0;
  // An SM's L1 sends the L2 one request (a sector) per interconnect cycle
  // (port_sector_cost, core cycles in 1/256) and holds l1d.miss_queue of them
  // (miss_queue): with more waiting, its LD/ST unit takes no instruction until
  // they are sent.
  uint32_t port_sector_cost = 0;
  uint32_t miss_queue = 0;
  uint32_t of(HitLevel l) const { return l == HitLevel::kL1 ? l1_hit : l == HitLevel::kL2 ? l2_hit : dram; }
};

// The per-level latencies the cycle memory system gives an unloaded access:
// L1 hit = l1d.hit_latency; L2 hit adds the crossbar both ways and the L2
// latency; DRAM adds the row activation and column access and dram.extra_latency.
MemoryLatencies memory_latencies(const GpuSpec& spec);

// The sectors a kernel moves, per L2 slice and per DRAM channel (reads and
// write-backs), and per SM.
struct KernelTraffic {
  std::vector<uint64_t> slice_sectors, channel_sectors;
  std::vector<uint64_t> sm_l2_sectors, sm_dram_sectors;

  bool operator==(const KernelTraffic&) const = default;
};

// The L2 and DRAM are shared by the SMs of a kernel: a kernel cannot move
// its sectors faster than its busiest slice and its busiest channel serve
// them. Each SM's queue gets the per-sector cost at which the SM with the
// most traffic takes exactly that long (the others, with less, finish
// sooner). A pure function of the kernel's traffic: the SMs then run
// independently, on any thread.
void share_bandwidth(MemoryLatencies& latencies, const KernelTraffic& traffic);

enum class LineAccessKind : uint8_t { kLoad = 0, kLoadUncached, kStore, kAtomic };

// What one instruction's access to one line costs.
struct LineCost {
  HitLevel level = HitLevel::kL1;
  uint8_t l2_sectors = 0;       // sectors through the L2 (bandwidth)
  uint8_t dram_reads = 0;       // sectors read from DRAM (the access waits for them)
  uint8_t dram_writebacks = 0;  // dirty sectors of evicted lines written to DRAM
};

class CacheHitLevels {
 public:
  // Throws std::invalid_argument when the L1D or L2 lines are not 128 B of 32 B sectors.
  CacheHitLevels(const GpuSpec& spec);
  CacheHitLevels(const CacheHitLevels&) = delete;  // (locator_ refers to map_)
  CacheHitLevels& operator=(const CacheHitLevels&) = delete;
  // A kernel starts: the L1s are empty again (not coherent) and sized by the
  // kernel's carve-out (`l1_kb` for the L1D); the L2 keeps its lines.
  void start_kernel(uint32_t l1_kb);
  // A kernel read twice goes through the levels twice from the same L2:
  // save_l2() keeps a copy of the L2's state (the L1s start every kernel
  // empty anyway), restore_l2() puts it back (a swap: the copy's storage is
  // kept for the next save).
  void save_l2();
  void restore_l2();
  // A host-to-device copy leaves its last L2-sized part in the L2.
  void copy_to_device(uint64_t address, uint64_t bytes);
  // SM `sm` accesses the sectors `sectors` (bit s: sector s) of the 128 B
  // line at `line_addr`, the bytes of `byte_masks[s]` of each, in `requests`
  // sector requests (the coalescer's groups may each ask for a sector): a
  // store, an atomic or an uncached load sends every request below the L1, a
  // cached load each missed sector once (the MSHRs merge the others).
  LineCost access(uint32_t sm, uint64_t line_addr, uint32_t sectors, const std::array<uint32_t, 4>& byte_masks,
                  LineAccessKind kind, uint32_t requests = 0);
  const L1dSpec& l1_spec() const { return spec_.memory.l1d; }
  // Global loads allocate in the L1D (l1d.cache_global).
  bool l1_caches_global() const { return spec_.memory.l1d.cache_global; }
  // The traffic of the kernel so far (since start_kernel()).
  const KernelTraffic& traffic() const { return traffic_; }

 private:
  uint8_t write_back(uint32_t slice, const VictimWriteBacks& wb);

  const GpuSpec& spec_;
  AddressMap map_;
  // map_.locate() with the last channel interleave chunk's mapping kept: a
  // warp's lines mostly share a chunk with the previous access's.
  LineLocator locator_{map_};
  std::vector<SectorCache> l1_;
  std::vector<std::unique_ptr<L2CachePolicy>> l2_;  // per slice
  std::vector<std::unique_ptr<L2CachePolicy>> l2_saved_;  // save_l2()'s copy
  KernelTraffic traffic_;
};

}  // namespace lockstep
