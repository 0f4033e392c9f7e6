#pragma once
// The tag and state array of a sectored, set-associative cache, shared by the
// SM's L1 data cache and the L2 slices (papers/volta-memory-system.txt §III,
// accel-sim.txt §II-B "Sectored caches"). Tags cover a line (128 B); data
// moves and hits in sectors (32 B). Each sector keeps a valid bit, a dirty bit
// and a byte mask of the bytes it holds ("write-validate": a write installs
// only its bytes, without fetching the rest of the sector). A sector is
// readable when it is valid with every byte present.
//
// The array holds state only (no data, no timing): the owner decides when
// to fill, how long a hit takes and what an eviction costs. It never
// allocates after construction.
//
//   L1D: write-through, allocate on fill (streaming): probe() on a read, fill()
//        when the sector returns, write(..., allocate=false) on a store,
//        invalidate_all() per kernel, set_ways() when the carve-out changes.
//   L2:  write-back, write-validate: write(..., allocate=true) on a store,
//        fill() on DRAM data, Eviction.dirty_sectors to write back.
//
// A lookup finds a tag through an index over the whole cache (many ways) or
// by scanning its set's tag marks (a few ways): TagLookup, with the same
// answers either way.
//
// Addresses are whatever byte addresses the owner indexes by (the L1 uses
// global addresses, an L2 slice its slice-local addresses, AddressMap);
// evictions return line addresses in that same space.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "configs/spec/memory_spec.h"
#include "memsys/zeroed_array.h"

namespace lockstep {

inline constexpr uint32_t kMaxSectorsPerLine = 32;  // one bit per sector in a 32-bit mask
inline constexpr uint32_t kMaxSectorBytes = 32;     // one bit per byte in a 32-bit byte mask

enum class WritePolicy : uint8_t {
  kWriteBack = 0,  // writes mark sectors dirty; evictions report them for write-back
  kWriteThrough,   // the owner forwards every write; nothing is ever dirty
};

enum class TagLookup : uint8_t {
  kAuto = 0,  // kScan up to kMaxScannedWays ways, else kIndex
  kIndex,     // a hash index from line number to line, over the whole cache
  kScan,      // the set's ways, a 16-bit mark of each tag compared sixteen at a time
};
inline constexpr uint32_t kMaxScannedWays = 32;

struct SectorCacheGeometry {
  uint32_t sets = 1;                        // power of two
  uint32_t ways = 1;                        // physical ways (the most set_ways() may enable)
  uint32_t line_bytes = 128;                // tag granularity, power of two
  uint32_t sector_bytes = 32;               // fill and hit granularity, power of two, <= kMaxSectorBytes
  IndexHash set_hash = IndexHash::kLinear;  // set index from the line number (index_hash(), address_map.h)
  WritePolicy write_policy = WritePolicy::kWriteBack;
  // How a lookup finds a tag (no effect on any state or result, only on the
  // host's work): kAuto scans the set's tags when it has at most
  // kMaxScannedWays ways (an L2 slice) and keeps a tag index otherwise (an L1
  // of hundreds of ways); tests force either.
  TagLookup tag_lookup = TagLookup::kAuto;

  uint32_t sectors_per_line() const { return line_bytes / sector_bytes; }
};

// What a lookup finds for the sector holding an address.
enum class SectorState : uint8_t {
  kHit = 0,     // line present, sector valid, every byte present: readable
  kPartial,     // line present, sector valid but only partly written (read needs a fetch and merge)
  kSectorMiss,  // line present, sector not valid
  kLineMiss,    // no line with this tag in the set
};

// A line pushed out to make room. Only dirty sectors need a write-back.
struct Eviction {
  bool valid = false;         // a valid line was evicted
  uint64_t line_addr = 0;     // byte address of the evicted line
  uint32_t valid_sectors = 0;  // bit s: sector s held data
  uint32_t dirty_sectors = 0;  // bit s: sector s must be written back (always 0 when write-through)
};

class SectorCache {
 public:
  // Throws std::invalid_argument on an impossible geometry.
  explicit SectorCache(const SectorCacheGeometry& geometry);

  const SectorCacheGeometry& geometry() const { return geometry_; }
  uint32_t ways_in_use() const { return ways_in_use_; }
  // Byte mask with one bit per byte of a sector (0xffffffff for 32 B sectors).
  uint32_t full_mask() const { return full_mask_; }

  uint64_t line_addr(uint64_t addr) const { return addr & ~uint64_t(geometry_.line_bytes - 1); }
  uint64_t sector_addr(uint64_t addr) const { return addr & ~uint64_t(geometry_.sector_bytes - 1); }
  uint32_t sector_in_line(uint64_t addr) const {
    return uint32_t((addr & (geometry_.line_bytes - 1)) >> sector_shift_);
  }
  uint32_t set_of(uint64_t addr) const;

  // State of the sector holding addr; no side effects.
  SectorState probe(uint64_t addr) const;
  // Bytes present in the sector holding addr (0 when the line or the sector is absent).
  uint32_t byte_mask(uint64_t addr) const;
  // Mark the line holding addr most recently used; false when the line is absent.
  bool touch(uint64_t addr);
  // probe(addr) == kHit, and then touch(addr), with one lookup: a read that hits.
  bool read_hit(uint64_t addr);
  // A hint that addr is looked up soon: the host loads the tag index's slot
  // for it, or its set's tag marks, into its cache (no effect on any state or
  // result).
  void prefetch(uint64_t addr) const {
    if (scan_)
      __builtin_prefetch(&marks_[std::size_t(set_of(addr)) * marks_per_set_]);
    else
      __builtin_prefetch(&tag_index_[home_slot(addr >> line_shift_)]);
  }
  // Whether lookups scan the set's tags (else they use the tag index).
  bool scans_sets() const { return scan_; }
  // What fill(addr) or write(addr, ..., true) would evict now, without changing
  // anything (valid = false when the line is present or its set has a free way).
  Eviction victim_of(uint64_t addr) const;

  // Sector data arrived (allocate on fill). If the line is absent, the first
  // invalid way of the set, else its least recently used way, is replaced and
  // returned. The sector becomes valid with every byte present; bytes already
  // written into it are kept (they are newer than memory), and so is its dirty bit.
  Eviction fill(uint64_t addr) { return fill_sectors(addr, 1u << sector_in_line(addr)); }
  // fill() of each sector of the line holding addr in `sectors` (bit s:
  // sector s), one after the other, with one lookup.
  Eviction fill_sectors(uint64_t addr, uint32_t sectors);

  // A store of the bytes in byte_mask to the sector holding addr
  // (write-validate: no fetch). allocate=true: the line is allocated if absent
  // (evicting as in fill()). allocate=false (write-through, no write-allocate):
  // only a present line is updated; an absent line is left absent. The
  // written bytes become present and the sector valid; dirty when write-back.
  Eviction write(uint64_t addr, uint32_t byte_mask, bool allocate);

  // Line-granular forms, for owners that handle a whole line at once (one
  // lookup instead of one per sector). `sectors` has bit s for sector s of
  // the line holding addr. The same as the per-sector calls in ascending
  // sector order (only the first can allocate, so at most one eviction):
  //   readable_sectors  the sectors among `sectors` for which probe() is kHit
  //   fill_sectors      fill() of each sector (above)
  //   read_hit_sectors  read_hit() of each sector: the readable ones (the line
  //                     becomes most recently used when there is one)
  //   write_sectors     write(sector s, byte_masks[s], allocate) of each sector
  //                     (or the same byte_mask for every sector)
  uint32_t readable_sectors(uint64_t addr, uint32_t sectors) const;
  uint32_t read_hit_sectors(uint64_t addr, uint32_t sectors);
  Eviction write_sectors(uint64_t addr, uint32_t sectors, const uint32_t* byte_masks, bool allocate);
  Eviction write_sectors(uint64_t addr, uint32_t sectors, uint32_t byte_mask, bool allocate);
  // A read of the sectors that fetches the unreadable ones at once, with one
  // lookup: read_hit_sectors(addr, sectors), then fill_sectors(addr, the
  // others). Returns the readable ones; *ev is what the fill evicted.
  uint32_t read_hit_or_fill_sectors(uint64_t addr, uint32_t sectors, Eviction* ev);
  // write_sectors(addr, sectors, byte_mask, allocate), also telling whether
  // the line was present before (what probe() != kLineMiss said).
  Eviction write_sectors(uint64_t addr, uint32_t sectors, uint32_t byte_mask, bool allocate, bool* line_was_present);

  // Drop every line (dirty data is discarded: write-through owners only, or tests).
  void invalidate_all();
  // Enable the first `ways` ways of each set (1 .. geometry().ways); invalidates all lines.
  void set_ways(uint32_t ways);

  // Occupancy, for tests and statistics.
  uint32_t valid_lines() const;
  uint32_t valid_sectors() const;
  uint32_t dirty_sectors() const;

 private:
  static constexpr uint32_t kNoLine = 0xffffffffu;

  // The line a way holds and its place in its set's recency list;
  // meaningful only while the way is present. One record per way, so that a
  // lookup, an allocation and an LRU update touch one place per line.
  struct Line {
    uint64_t tag = 0;    // line number (address / line_bytes)
    uint32_t valid = 0;  // bit per sector
    uint32_t dirty = 0;  // bit per sector
    // Bit per sector: every byte present (the sector is readable when also
    // valid). A valid sector without it has its bytes in byte_masks_.
    uint32_t whole = 0;
    uint16_t lru_prev = 0;  // the next more recently used way of the set
    uint16_t lru_next = 0;  // the next less recently used way of the set
    // The tag index slot holding this line's tag (kept when entries move),
    // so that evicting the line erases it without hashing or probing.
    uint32_t slot = 0;
    uint32_t set = 0;  // the set of the line
  };
  // Replacement state of a set. A way is only ever freed together with every
  // other way (invalidate_all, set_ways) and a miss takes the first absent way,
  // so the present ways are always ways 0 .. present - 1. Recency is a doubly
  // linked list of the present ways (Line::lru_prev / lru_next), most recently
  // used first: LRU by call order.
  struct SetState {
    uint32_t present = 0;  // ways 0 .. present - 1 hold lines
    uint32_t mru = 0;      // most recently used way (when present > 0)
    uint32_t lru = 0;      // least recently used way (when present > 0)
  };
  // What a lookup returns: the line (set * geometry.ways + way) holding a
  // tag and its set, or line = kNoLine.
  struct TagSlot {
    uint64_t tag = 0;
    uint32_t line = kNoLine;  // kNoLine: absent
    uint32_t set = 0;         // the set of the line
  };
  // Open-addressed (linear probing) index from a line number to the line
  // holding it. A line number maps to one set, so the tag alone identifies
  // the line across the cache. A slot holds the line and the high half of
  // the tag's hash (whose top bits are its home slot): a probe compares
  // fingerprints and reads the line's tag only on a match, and a deletion
  // finds the home slots of the entries it moves without rehashing. Zero
  // bytes are an empty slot (the index starts as untouched zero pages).
  struct StoredSlot {
    uint32_t line_inverted = 0;  // ~line; 0: empty slot
    uint32_t fingerprint = 0;    // tag_hash(tag) >> 32
    bool empty() const { return line_inverted == 0; }
    uint32_t line() const { return ~line_inverted; }
  };
  static uint64_t tag_hash(uint64_t tag) { return tag * 0x9E3779B97F4A7C15ull; }
  static uint32_t fingerprint_of(uint64_t tag) { return uint32_t(tag_hash(tag) >> 32); }
  uint32_t home_of(uint32_t fingerprint) const { return fingerprint >> home_shift_; }

  // The slot of tag: its line index (set * geometry.ways + way) and set, or line = kNoLine.
  // (Inlined: the remembered answers are most lookups of a line's accesses;
  // the probe and the scan stay out of line.)
  [[gnu::always_inline]] TagSlot find(uint64_t tag) const {
    if (last_found_.line != kNoLine && last_found_.tag == tag) return last_found_;
    if (last_missing_set_ && last_missing_ == tag) return TagSlot{};
    return scan_ ? find_in_set(tag) : find_in_index(tag);
  }
  // find() by probing the index (remembering the answer).
  [[gnu::noinline]] TagSlot find_in_index(uint64_t tag) const;
  // find() by comparing the tags of the set's present ways (remembering the answer).
  [[gnu::noinline]] TagSlot find_in_set(uint64_t tag) const;
  // The set of a line number.
  uint32_t set_of_line(uint64_t line) const;
  // set_of(addr) for allocating its line, found without hashing when the
  // line's lookup just missed (scan_).
  uint32_t set_to_allocate(uint64_t addr) const;
  uint32_t home_slot(uint64_t tag) const { return home_of(fingerprint_of(tag)); }
  // The first empty slot of tag's probe run: where an absent tag is inserted.
  uint32_t free_slot_for(uint64_t tag) const;
  // Store tag's entry at `slot` (an empty slot ending its probe run).
  void index_insert_at(uint32_t slot, uint64_t tag, uint32_t line);
  // Empty `slot` (backward-shift deletion), keeping Line::slot of the moved entries.
  void index_erase_at(uint32_t slot);
  // Make a present way the most recently used of its set.
  void make_mru(uint32_t set, uint32_t way);
  // Install a line for tag in its set, returning what was evicted: the first
  // absent way (way `present`), else the least recently used way. The new line
  // is most recently used.
  // Returns the line index; *ev is what was evicted.
  uint32_t allocate(uint32_t set, uint64_t tag, Eviction* ev);
  Eviction eviction_of(uint32_t line_index) const;
  // The line holding addr made most recently used, or (when absent and
  // allocate_line) installed with allocate(); kNoLine when absent and not allocated.
  uint32_t use_line(uint64_t addr, bool allocate_line, Eviction& ev);
  // use_line() with the line's slot already found.
  uint32_t use_found(uint64_t addr, TagSlot found, bool allocate_line, Eviction& ev);
  // The bytes byte_mask written into sector s of line `line_index` (its
  // whole bit and byte mask; the caller marks the sector valid).
  void write_bytes(uint32_t line_index, uint32_t s, uint32_t byte_mask);
  // The readable sectors among `sectors` of line `line_index`.
  uint32_t readable_in(uint32_t line_index, uint32_t sectors) const;
  // write_sectors(addr, sectors, byte_mask, allocate_line) with the line's slot already found.
  Eviction write_found(uint64_t addr, TagSlot found, uint32_t sectors, uint32_t byte_mask, bool allocate_line);
  // write_sectors with the bytes of sector s from bytes_of(s).
  template <typename BytesOf>
  Eviction write_sectors_with(uint64_t addr, uint32_t sectors, bool allocate_line, BytesOf&& bytes_of);
  uint32_t index_of(uint32_t set, uint32_t way) const { return set * geometry_.ways + way; }
  uint32_t* masks(uint32_t line_index) { return &byte_masks_[std::size_t(line_index) * sectors_per_line_]; }
  const uint32_t* masks(uint32_t line_index) const { return &byte_masks_[std::size_t(line_index) * sectors_per_line_]; }

  SectorCacheGeometry geometry_;
  uint32_t ways_in_use_;
  uint32_t sectors_per_line_;
  uint32_t set_bits_;
  uint32_t line_shift_;
  uint32_t sector_shift_;            // log2(sector_bytes)
  uint32_t full_mask_;
  uint32_t home_shift_;              // 32 - log2(tag_index_.size())
  // Every array starts as zero bytes (ZeroedArray): a run touches the
  // pages of the sets it uses only.
  ZeroedArray<Line> lines_;          // sets x ways
  // sets x ways x sectors_per_line: the bytes present in a sector that is
  // valid but not whole (Line::whole); otherwise stale (allocation and
  // filling leave them).
  ZeroedArray<uint32_t> byte_masks_;
  ZeroedArray<SetState> set_state_;  // per set
  ZeroedArray<StoredSlot> tag_index_;  // without scan_: power of two, four times the lines (at least twice)
  // With scan_: per set, a 16-bit mark of each present way's tag, the ways
  // rounded up to a multiple of kMarkGroup (a set's 24 ways in 64 bytes,
  // one host cache line): a lookup compares kMarkGroup marks at once and
  // reads the tag (Line::tag) of the ways whose mark matches only. No tag index.
  static constexpr uint32_t kMarkGroup = 16;
  ZeroedArray<uint16_t> marks_;
  uint32_t marks_per_set_ = 0;
  static uint16_t mark_of(uint64_t tag) { return uint16_t(tag_hash(tag) >> 48); }
  bool scan_ = false;
  // The last line find() found (line = kNoLine: none): the sectors of one
  // line mostly come one after another, so they share one index lookup.
  // Dropped when its tag leaves the index.
  mutable TagSlot last_found_;
  // The last tag find() did not find (valid while last_missing_set_): a miss
  // is mostly looked up again at once to allocate. Dropped by every change
  // of the index. last_missing_slot_ is the empty slot that ended its probe
  // run, where allocate() inserts it without probing again (scan_: its set).
  // set_of() under IndexHash::kIpoly: the high 32 bits of the last line
  // number it hashed and their part of the set index (0 hashes to 0).
  mutable uint64_t ipoly_high_ = 0;
  mutable uint32_t ipoly_high_part_ = 0;
  mutable uint64_t last_missing_ = 0;
  mutable uint32_t last_missing_slot_ = 0;
  mutable bool last_missing_set_ = false;
};

}  // namespace lockstep
