#pragma once
// The L2 slices and DRAM traffic of the cache-functional memory model
// (papers/cache-functional-memory-model.txt §4.1, §3.3): each slice a
// L2CachePolicy (sectored, write-back, write-validate or fetch on write per
// l2.write_validate, LRU, IPOLY set hash;
// the decisions the timed slice makes, memsys/l2_slice.h), taking requests
// one after another with no timing. A read or atomic that finds no readable
// sector is one DRAM read and fills the sector at once; every dirty sector
// of a line evicted by a fill or a write is one DRAM write. The copy
// engine's MemcpyHtoD bytes land as written data (memsys/copy_engine.h).
//
// Slices share nothing: process() of different slices may run on different
// threads at once. Counters per slice, in the timed slices' and channels'
// structures; a slice's DRAM counters belong to its channel (slice /
// l2.subpartitions).
#include <cstdint>
#include <vector>

#include "configs/spec/memory_spec.h"
#include "memsys/address_map.h"
#include "memsys/dram_channel_stats.h"
#include "memsys/functional/l2_request.h"
#include "memsys/l2_cache_policy.h"
#include "memsys/l2_slice_stats.h"
#include "memsys/memory_stats.h"

namespace lockstep {

class FunctionalL2Slice {
 public:
  explicit FunctionalL2Slice(const L2Spec& spec) : policy_(spec) {}

  // One request (slice-local address).
  void access(const L2Request& r) {
    switch (r.type) {
      case L2RequestType::kRead: read_sectors(r.line, r.sectors); break;
      case L2RequestType::kWrite: write_sectors(r.line, r.sectors, r.byte_mask); break;
      case L2RequestType::kAtomic: atomic_sectors(r.line, r.sectors, r.byte_mask); break;
    }
  }
  // The sectors `sectors` (bit s: sector s) of the line holding `local`, with
  // one lookup: the same counters and cache state as the one-sector calls
  // below for each sector, in any order (a sector's outcome depends only on
  // the sector and on whether its line is present, and only the first call
  // can allocate the line).
  void read_sectors(uint64_t local, uint32_t sectors);
  void write_sectors(uint64_t local, uint32_t sectors, uint32_t byte_mask);
  void atomic_sectors(uint64_t local, uint32_t sectors, uint32_t byte_mask);
  // One sector.
  void read(uint64_t local) { read_sectors(local, sector_bit(local)); }
  void write(uint64_t local, uint32_t byte_mask) { write_sectors(local, sector_bit(local), byte_mask); }
  void atomic(uint64_t local, uint32_t byte_mask) { atomic_sectors(local, sector_bit(local), byte_mask); }
  // Copy engine: a line's copied sectors (for_each_copied_line's form) land
  // as written data at once; victims are dropped.
  void warm_line(uint64_t local, uint32_t sectors, const uint32_t* byte_masks) {
    policy_.warm_line(local, sectors, byte_masks);
  }

  const SectorCache& cache() const { return policy_.cache(); }
  const L2SliceStats& stats() const { return stats_; }
  const DramChannelStats& dram_stats() const { return dram_; }
  void clear_stats() {
    stats_ = {};
    dram_ = {};
  }

 private:
  uint32_t sector_bit(uint64_t local) const { return 1u << policy_.cache().sector_in_line(local); }
  // The sectors are fetched from DRAM and filled (the line's victim written back).
  void fetch(uint64_t local, uint32_t sectors);
  void count_fetch(uint32_t sectors);
  // The readable sectors among `sectors` hit; the others are fetched and
  // filled (the line's victim written back). Returns the hits.
  uint32_t read_and_fetch(uint64_t local, uint32_t sectors);
  void write_back(const VictimWriteBacks& victim);

  L2CachePolicy policy_;
  L2SliceStats stats_;
  DramChannelStats dram_;
};

class FunctionalL2 {
 public:
  // The spec must be valid (MemorySpec::validate()).
  explicit FunctionalL2(const MemorySpec& spec);

  const AddressMap& map() const { return map_; }
  uint32_t slices() const { return uint32_t(slices_.size()); }
  FunctionalL2Slice& slice(uint32_t id) { return slices_[id]; }

  // Copy engine (MemcpyHtoD): the copied bytes land in the slices as written data.
  void copy_to_device(uint64_t addr, uint64_t bytes);
  // Every slice's and channel's counters since the last take, summed or per
  // instance ("l2.slice<ID>", "dram.channel<ID>"); zeroes them.
  MemoryStats take_stats();
  MemoryInstanceStats take_instance_stats();

 private:
  const MemorySpec& spec_;
  AddressMap map_;
  std::vector<FunctionalL2Slice> slices_;
};

}  // namespace lockstep
