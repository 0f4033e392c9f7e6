#pragma once
// The L2's cache decisions without time: a sectored, write-back,
// write-validate cache over a SectorCache (papers/volta-memory-system.txt
// §III-B, accel-sim.txt "Write-Aware Cache Design"). The timed slice
// (l2_slice.h) asks it every question about the cache and adds queues,
// MSHRs and latencies; a functional memory model can call it directly to
// count hits and DRAM traffic.
//
// Rules, per sector (addresses are whatever the owner indexes by: a slice's
// slice-local addresses):
//   read / atomic  served only by a readable sector (valid, every byte
//                  present): hit. Otherwise the sector is fetched from DRAM:
//                  missing line, missing sector, or a sector only partly
//                  written ("lazy fetch on read": the fetched data merges
//                  under the written bytes on fill).
//   write          write-validate (l2.write_validate, the default): never fetches. Installs its bytes as
//                  present and dirty, allocating the line if absent (a write
//                  "hit" when the line was present). An atomic, once its
//                  sector is readable, writes its bytes the same way.
//   fill           DRAM data: the sector becomes readable, allocating the
//                  line if absent; bytes written meanwhile stay (and stay dirty).
//   allocation     (write, fill) replaces the set's LRU line when the set is
//                  full: each of its dirty sectors is one DRAM write-back.
//   warm           copy-engine data: written bytes, victims' write-backs dropped.
//   invalidate     a flush between kernels (--cache-control all): every line
//                  goes; dirty data counts as written back outside the timing.
//   fetch on write l2.write_validate = false (the paper's plain write-back,
//                  write-allocate L2): a write to a sector that is not
//                  readable reads it from DRAM first (write_needs_fetch; the
//                  owner fills, then writes). The timed slice rejects it.
#include <bit>
#include <cstdint>

#include "configs/spec/memory_spec.h"
#include "memsys/sector_cache.h"

namespace lockstep {

// The dirty sectors of an evicted line: one DRAM write-back each, in sector order.
struct VictimWriteBacks {
  uint64_t line_addr = 0;      // evicted line (in the cache's address space)
  uint32_t dirty_sectors = 0;  // bit s: sector s is written back
  uint32_t sector_bytes = 32;

  uint32_t count() const { return uint32_t(std::popcount(dirty_sectors)); }
  // visit(sector address) for every write-back, lowest sector first.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (uint32_t m = dirty_sectors; m != 0; m &= m - 1)
      visit(line_addr + uint64_t(std::countr_zero(m)) * sector_bytes);
  }
};

class L2CachePolicy {
 public:
  // Throws std::invalid_argument on an impossible geometry.
  explicit L2CachePolicy(const L2Spec& spec);

  const SectorCache& cache() const { return cache_; }
  uint64_t sector_addr(uint64_t addr) const { return cache_.sector_addr(addr); }

  // What the cache holds for the sector of addr (no side effects).
  SectorState lookup(uint64_t addr) const { return cache_.probe(addr); }
  // A read or atomic finding `state` is served without DRAM.
  static bool readable(SectorState state) { return state == SectorState::kHit; }
  // A write finding `state` counts as a write hit (its line was present).
  static bool write_hit(SectorState state) { return state != SectorState::kLineMiss; }
  // A write to the sector of addr must first read it from DRAM (l2.write_validate = false, and not readable).
  bool write_needs_fetch(uint64_t addr) const { return !write_validate_ && !readable(lookup(addr)); }
  // The same for the sectors `sectors` (bit s: sector s) of the line holding addr: those that must be read first.
  uint32_t write_fetch_sectors(uint64_t addr, uint32_t sectors) const {
    return write_validate_ ? 0 : sectors & ~readable_sectors(addr, sectors);
  }
  // The sectors of the line holding addr (bit s: sector s) among `sectors`
  // that a read would have to fetch.
  uint32_t sectors_to_fetch(uint64_t addr, uint32_t sectors) const;

  // A read or atomic served by its readable sector: the line becomes most recently used.
  void hit(uint64_t addr) { cache_.touch(addr); }
  // readable(lookup(addr)), and then hit(addr), with one lookup.
  bool hit_if_readable(uint64_t addr) { return cache_.read_hit(addr); }
  // Write-validate the bytes of byte_mask into the sector of addr (see above).
  VictimWriteBacks write(uint64_t addr, uint32_t byte_mask) { return writebacks_of(cache_.write(addr, byte_mask, true)); }
  // The write-backs write(addr, ...) or fill(addr) would cause now (nothing changes).
  uint32_t writebacks_needed(uint64_t addr) const { return writebacks_of(cache_.victim_of(addr)).count(); }
  // DRAM data for the sector of addr.
  VictimWriteBacks fill(uint64_t addr) { return writebacks_of(cache_.fill(addr)); }
  // Line-granular forms (one lookup per line) for the sectors `sectors` (bit s:
  // sector s) of the line holding addr, as the per-sector calls in ascending
  // sector order: the readable ones among them; hit_if_readable(); fill();
  // write() (each sector its own bytes, or the same bytes for every sector).
  uint32_t readable_sectors(uint64_t addr, uint32_t sectors) const { return cache_.readable_sectors(addr, sectors); }
  uint32_t hit_sectors_if_readable(uint64_t addr, uint32_t sectors) { return cache_.read_hit_sectors(addr, sectors); }
  VictimWriteBacks fill_sectors(uint64_t addr, uint32_t sectors) { return writebacks_of(cache_.fill_sectors(addr, sectors)); }
  VictimWriteBacks write_sectors(uint64_t addr, uint32_t sectors, const uint32_t* byte_masks) {
    return writebacks_of(cache_.write_sectors(addr, sectors, byte_masks, true));
  }
  VictimWriteBacks write_sectors(uint64_t addr, uint32_t sectors, uint32_t byte_mask) {
    return writebacks_of(cache_.write_sectors(addr, sectors, byte_mask, true));
  }
  // The same, also telling whether it was a write hit (write_hit(lookup(addr)) before it).
  VictimWriteBacks write_sectors(uint64_t addr, uint32_t sectors, uint32_t byte_mask, bool* was_hit) {
    return writebacks_of(cache_.write_sectors(addr, sectors, byte_mask, true, was_hit));
  }
  // A read whose unreadable sectors are fetched and filled at once (no
  // timing between), with one lookup: hit_sectors_if_readable(addr, sectors),
  // then fill_sectors(addr, the others). Returns the readable ones; *fill
  // is the fill's write-backs.
  uint32_t hit_sectors_or_fill(uint64_t addr, uint32_t sectors, VictimWriteBacks* fill) {
    Eviction ev;
    const uint32_t hits = cache_.read_hit_or_fill_sectors(addr, sectors, &ev);
    *fill = writebacks_of(ev);
    return hits;
  }
  // Copy engine: bytes [addr, addr + bytes) of one sector land as written data; victims are dropped.
  void warm(uint64_t addr, uint32_t bytes);
  // The same for the sectors `sectors` of the line holding `addr` with one
  // lookup, byte_masks[s] the bytes of sector s (for_each_copied_line's
  // form): as warm() of each sector in turn.
  void warm_line(uint64_t addr, uint32_t sectors, const uint32_t* byte_masks) {
    cache_.write_sectors(addr, sectors, byte_masks, true);
  }
  // Between kernels, nothing outstanding: every line goes.
  void invalidate() { cache_.invalidate_all(); }

 private:
  VictimWriteBacks writebacks_of(const Eviction& ev) const {
    VictimWriteBacks wb;
    wb.sector_bytes = cache_.geometry().sector_bytes;
    if (!ev.valid) return wb;
    wb.line_addr = ev.line_addr;
    wb.dirty_sectors = ev.dirty_sectors;
    return wb;
  }

  SectorCache cache_;
  bool write_validate_;
};

}  // namespace lockstep
