#pragma once
// The L1 data cache's decisions without time (papers/volta-memory-system.txt
// §III-C, accel-sim.txt §II-B): which path an access takes, whether a load
// hits, what a store and a fill do to the tag array, and the capacity the
// kernel's shared-memory carve-out leaves. The timed L1 (l1_data_cache.h)
// asks it every question about the cache and adds the MSHRs, queues and
// latencies; the cache-functional memory model (memsys/functional/) calls it
// directly.
//
// Rules, per 32 B sector:
//   load        cached (local and texture always, global when l1d.cache_global):
//               hits only a readable sector (valid, every byte present); a
//               miss is fetched from the L2 and allocated when its data
//               returns (streaming: allocate on fill).
//   load bypass global with l1d.cache_global = false: fetched, never allocated.
//   store       write-through, no write-allocate: a present line takes the
//               bytes, an absent line stays absent; every store goes to the L2.
//   atomic      bypasses the L1: executed at the L2.
//   kernel      a new kernel invalidates the cache (it is not coherent) and,
//               with l1d.adaptive, sizes it from the carve-out: the ways of
//               l1_kb over l1d.sets lines (at least 1, at most the unified storage).
#include <cstdint>

#include "configs/spec/memory_spec.h"
#include "core/sm_memory_access.h"
#include "memsys/sector_cache.h"

namespace lockstep {

// What one access asks of the L1.
enum class L1Access : uint8_t {
  kLoad = 0,        // cached read
  kLoadBypass,      // read that does not allocate in L1 (l1d.cache_global = false)
  kStore,           // write through, no write-allocate
  kAtomic,          // executed at the L2
};

// The L1D's tag array: its sets, and physical ways enough for `unified_kb`
// when adaptive; write-through (stores do not allocate).
SectorCacheGeometry l1_geometry(const L1dSpec& spec, uint32_t unified_kb);
// The ways a kernel whose carve-out leaves `l1_kb` to the L1D enables.
uint32_t l1_ways_for_kernel(const L1dSpec& spec, uint32_t l1_kb, uint32_t physical_ways);

class L1CachePolicy {
 public:
  // `unified_kb`: the SM's unified L1 / shared storage (sets the physical ways when adaptive).
  L1CachePolicy(const L1dSpec& spec, uint32_t unified_kb);

  // The path of an access of `op` to `space`.
  static L1Access access_kind(const L1dSpec& spec, SmAccessOp op, MemSpace space);

  // A new kernel whose carve-out leaves `l1_kb` to the L1: invalidate, resize.
  void start_kernel(uint32_t l1_kb);
  // A cached load of the sector of addr: true when it hits (the line becomes most recently used).
  bool load_hits(uint64_t addr) { return cache_.read_hit(addr); }
  // The same for the sectors `sectors` (bit s: sector s) of the line holding
  // addr, in one lookup: the sectors that hit (the line becomes most recently used when one does).
  uint32_t load_hit_sectors(uint64_t addr, uint32_t sectors) { return cache_.read_hit_sectors(addr, sectors); }
  // A store's bytes: a present line is updated, an absent one is not allocated.
  void store(uint64_t addr, uint32_t byte_mask) { cache_.write(addr, byte_mask, false); }
  // store() of the sectors `sectors` of the line holding addr, sector s taking byte_masks[s], in one lookup.
  void store_sectors(uint64_t addr, uint32_t sectors, const uint32_t* byte_masks) {
    cache_.write_sectors(addr, sectors, byte_masks, false);
  }
  // The same with byte_mask for every sector.
  void store_sectors(uint64_t addr, uint32_t sectors, uint32_t byte_mask) {
    cache_.write_sectors(addr, sectors, byte_mask, false);
  }
  // A cached load's sector arrived: allocate on fill.
  void fill(uint64_t addr) { cache_.fill(addr); }
  // fill() of the sectors of the line holding addr in `sectors` (bit s: sector s), in one lookup.
  void fill_sectors(uint64_t addr, uint32_t sectors) { cache_.fill_sectors(addr, sectors); }

  const SectorCache& cache() const { return cache_; }

 private:
  const L1dSpec& spec_;
  SectorCache cache_;
};

}  // namespace lockstep
