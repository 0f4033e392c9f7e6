// SectorCache: line-granular tags, sector-granular fills, LRU, write-validate masks.
#include "memsys/sector_cache.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <random>
#include <vector>

#include "memsys/address_map.h"
#include "memsys/index_hash/index_hash.h"

namespace lockstep {
namespace {

// 2 sets x 2 ways x 128 B lines of 4 x 32 B sectors, linear set index: line n is in set n % 2.
SectorCacheGeometry small(WritePolicy policy = WritePolicy::kWriteBack) {
  SectorCacheGeometry g;
  g.sets = 2;
  g.ways = 2;
  g.line_bytes = 128;
  g.sector_bytes = 32;
  g.set_hash = IndexHash::kLinear;
  g.write_policy = policy;
  return g;
}

constexpr uint64_t kLine = 128;

TEST(SectorCacheFill, SectorFillsAreEvictedAsOneLine) {
  SectorCache c(small());
  for (uint64_t s = 0; s < 4; ++s) EXPECT_FALSE(c.fill(0 * kLine + s * 32).valid);
  EXPECT_EQ(c.valid_lines(), 1u);
  EXPECT_EQ(c.valid_sectors(), 4u);
  for (uint64_t s = 0; s < 4; ++s) EXPECT_EQ(c.probe(s * 32), SectorState::kHit);
  // Lines 2 and 4 share set 0 with line 0: the second evicts line 0, all four sectors at once.
  EXPECT_FALSE(c.fill(2 * kLine).valid);
  const Eviction ev = c.fill(4 * kLine + 64);
  ASSERT_TRUE(ev.valid);
  EXPECT_EQ(ev.line_addr, 0u);
  EXPECT_EQ(ev.valid_sectors, 0xfu);
  EXPECT_EQ(ev.dirty_sectors, 0u);
  for (uint64_t s = 0; s < 4; ++s) EXPECT_EQ(c.probe(s * 32), SectorState::kLineMiss);
  EXPECT_EQ(c.valid_lines(), 2u);
  EXPECT_EQ(c.valid_sectors(), 2u);  // one sector each of lines 2 and 4
}

TEST(SectorCacheFill, MissingSectorOfAPresentLineIsASectorMiss) {
  SectorCache c(small());
  c.fill(32);
  EXPECT_EQ(c.probe(32), SectorState::kHit);
  EXPECT_EQ(c.probe(0), SectorState::kSectorMiss);
  EXPECT_EQ(c.probe(kLine), SectorState::kLineMiss);
}

TEST(SectorCacheLru, EvictsTheLeastRecentlyUsedWay) {
  SectorCache c(small());
  c.fill(0 * kLine);
  c.fill(2 * kLine);
  EXPECT_TRUE(c.touch(0));  // line 0 now most recent: line 2 is the victim
  EXPECT_EQ(c.victim_of(4 * kLine).line_addr, 2 * kLine);
  Eviction ev = c.fill(4 * kLine);
  EXPECT_EQ(ev.line_addr, 2 * kLine);
  // Now line 0 is the older of {0, 4}.
  ev = c.fill(6 * kLine);
  EXPECT_EQ(ev.line_addr, 0u);
  EXPECT_EQ(c.probe(4 * kLine), SectorState::kHit);
  EXPECT_EQ(c.probe(6 * kLine), SectorState::kHit);
  // The other set was never touched.
  EXPECT_FALSE(c.fill(1 * kLine).valid);
  EXPECT_FALSE(c.touch(8 * kLine));
}

TEST(SectorCacheWrite, WriteValidateInstallsOnlyTheWrittenBytes) {
  SectorCache c(small());
  // A 4-byte store to bytes 0..3 of sector 1: the line is allocated, the sector is
  // valid and dirty but not readable.
  EXPECT_FALSE(c.write(32, 0x0000000f, true).valid);
  EXPECT_EQ(c.probe(32), SectorState::kPartial);
  EXPECT_EQ(c.byte_mask(32), 0x0000000fu);
  EXPECT_EQ(c.probe(0), SectorState::kSectorMiss);
  EXPECT_EQ(c.dirty_sectors(), 1u);
  // The rest of the sector written: readable without any fill.
  c.write(32, 0xfffffff0, true);
  EXPECT_EQ(c.probe(32), SectorState::kHit);
  // A fill of a partly written sector completes it and keeps it dirty.
  c.write(64, 0x00ff0000, true);
  c.fill(64);
  EXPECT_EQ(c.probe(64), SectorState::kHit);
  EXPECT_EQ(c.dirty_sectors(), 2u);
  // Eviction reports the sectors the line held and the dirty ones.
  c.fill(2 * kLine);
  const Eviction ev = c.fill(4 * kLine);
  ASSERT_TRUE(ev.valid);
  EXPECT_EQ(ev.line_addr, 0u);
  EXPECT_EQ(ev.valid_sectors, 0b0110u);
  EXPECT_EQ(ev.dirty_sectors, 0b0110u);
}

TEST(SectorCacheWrite, WithoutAllocateOnlyUpdatesAPresentLine) {
  SectorCache c(small(WritePolicy::kWriteThrough));
  EXPECT_FALSE(c.write(0, 0xffffffff, false).valid);
  EXPECT_EQ(c.probe(0), SectorState::kLineMiss);
  EXPECT_EQ(c.valid_lines(), 0u);
  c.fill(0);
  c.write(0, 0x1, false);  // hit: updated, never dirty when write-through
  c.write(32, 0x3, false);  // line present, sector absent: only those bytes
  EXPECT_EQ(c.probe(0), SectorState::kHit);
  EXPECT_EQ(c.probe(32), SectorState::kPartial);
  EXPECT_EQ(c.dirty_sectors(), 0u);
}

TEST(SectorCacheWays, SetWaysInvalidatesAndLimitsAssociativity) {
  SectorCacheGeometry g = small();
  g.ways = 4;
  SectorCache c(g);
  for (uint64_t n = 0; n < 8; ++n) c.fill(n * kLine);
  EXPECT_EQ(c.valid_lines(), 8u);
  c.set_ways(1);
  EXPECT_EQ(c.valid_lines(), 0u);
  EXPECT_EQ(c.ways_in_use(), 1u);
  c.fill(0);
  EXPECT_EQ(c.fill(2 * kLine).line_addr, 0u);  // direct-mapped now
  c.invalidate_all();
  EXPECT_EQ(c.valid_sectors(), 0u);
  EXPECT_THROW(c.set_ways(5), std::invalid_argument);
}

TEST(SectorCacheFill, SeveralSectorsOfALineFillLikeOneAfterTheOther) {
  SectorCache one(small()), many(small());
  one.write(kLine + 32, 0x0000ffff, true);
  many.write(kLine + 32, 0x0000ffff, true);
  for (uint32_t s : {0u, 1u, 3u}) one.fill(kLine + 32 * s);
  EXPECT_FALSE(many.fill_sectors(kLine, 0b1011).valid);
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_EQ(many.probe(kLine + 32 * s), one.probe(kLine + 32 * s)) << s;
    EXPECT_EQ(many.byte_mask(kLine + 32 * s), one.byte_mask(kLine + 32 * s)) << s;
  }
  EXPECT_EQ(many.probe(kLine + 64), SectorState::kSectorMiss);
  EXPECT_EQ(many.dirty_sectors(), 1u);
}

TEST(SectorCacheWays, InvalidatingAFewLinesOfALargeCacheDropsEachOfThem) {
  // Few lines in a large cache are dropped one by one (not by clearing the
  // whole index): none may stay findable, the last one looked up included.
  SectorCacheGeometry g = small();
  g.sets = 4;
  g.ways = 256;
  SectorCache c(g);
  for (uint64_t n = 0; n < 10; ++n) c.fill(n * 7 * kLine);
  EXPECT_TRUE(c.read_hit(63 * kLine));
  c.invalidate_all();
  EXPECT_EQ(c.valid_lines(), 0u);
  for (uint64_t n = 0; n < 10; ++n) EXPECT_EQ(c.probe(n * 7 * kLine), SectorState::kLineMiss) << n;
  EXPECT_FALSE(c.read_hit(63 * kLine));
  // The cache fills again as new.
  for (uint64_t n = 0; n < 10; ++n) EXPECT_FALSE(c.fill(n * 7 * kLine).valid);
  for (uint64_t n = 0; n < 10; ++n) EXPECT_EQ(c.probe(n * 7 * kLine), SectorState::kHit) << n;
  EXPECT_EQ(c.valid_lines(), 10u);
}

TEST(SectorCacheLru, FullTwoHundredFiftySixWaySetEvictsTheLeastRecentlyUsedWay) {
  // The adaptive L1 shape: 4 sets x 256 ways; line n is in set n % 4.
  SectorCacheGeometry g = small(WritePolicy::kWriteThrough);
  g.sets = 4;
  g.ways = 256;
  SectorCache c(g);
  for (uint64_t i = 0; i < 256; ++i) EXPECT_FALSE(c.fill(i * 4 * kLine).valid);
  EXPECT_EQ(c.valid_lines(), 256u);
  EXPECT_TRUE(c.touch(0));          // line 0 most recent: line 4 is now the oldest
  c.write(4 * kLine, 0x1, false);   // a write to a present line refreshes it too: line 8 is the oldest
  EXPECT_EQ(c.victim_of(1024 * kLine).line_addr, 8 * kLine);
  EXPECT_EQ(c.fill(1024 * kLine).line_addr, 8 * kLine);
  EXPECT_EQ(c.fill(1028 * kLine).line_addr, 12 * kLine);
  EXPECT_EQ(c.probe(0), SectorState::kHit);
  EXPECT_EQ(c.probe(8 * kLine), SectorState::kLineMiss);
  EXPECT_EQ(c.probe(1024 * kLine), SectorState::kHit);
  EXPECT_EQ(c.valid_lines(), 256u);
}

// The straightforward cache the optimized one must match call for call: every
// lookup scans the enabled ways of the set; the victim is the first absent way,
// else the way with the smallest last-use stamp (one stamp per touch, fill, write).
class ReferenceSectorCache {
 public:
  explicit ReferenceSectorCache(const SectorCacheGeometry& g)
      : g_(g), ways_in_use_(g.ways), lines_(size_t(g.sets) * g.ways) {
    full_mask_ = g.sector_bytes == 32 ? 0xffffffffu : (1u << g.sector_bytes) - 1;
  }

  SectorState probe(uint64_t addr) const {
    const int w = find(addr);
    if (w < 0) return SectorState::kLineMiss;
    const Line& l = line(set_of(addr), uint32_t(w));
    const uint32_t s = sector_in_line(addr);
    if (!(l.valid >> s & 1)) return SectorState::kSectorMiss;
    return l.masks[s] == full_mask_ ? SectorState::kHit : SectorState::kPartial;
  }
  uint32_t byte_mask(uint64_t addr) const {
    const int w = find(addr);
    return w < 0 ? 0 : line(set_of(addr), uint32_t(w)).masks[sector_in_line(addr)];
  }
  bool touch(uint64_t addr) {
    const int w = find(addr);
    if (w < 0) return false;
    line(set_of(addr), uint32_t(w)).last_use = ++clock_;
    return true;
  }
  bool read_hit(uint64_t addr) { return probe(addr) == SectorState::kHit && touch(addr); }
  Eviction victim_of(uint64_t addr) const {
    if (find(addr) >= 0) return Eviction{};
    return eviction_of(set_of(addr), victim(set_of(addr)));
  }
  Eviction fill(uint64_t addr) {
    Eviction ev;
    Line& l = locate(addr, &ev);
    const uint32_t s = sector_in_line(addr);
    l.valid |= 1u << s;
    l.masks[s] = full_mask_;
    l.last_use = ++clock_;
    return ev;
  }
  Eviction write(uint64_t addr, uint32_t mask, bool allocate) {
    if (!allocate && find(addr) < 0) return Eviction{};
    Eviction ev;
    Line& l = locate(addr, &ev);
    const uint32_t s = sector_in_line(addr);
    l.valid |= 1u << s;
    if (g_.write_policy == WritePolicy::kWriteBack) l.dirty |= 1u << s;
    l.masks[s] |= mask & full_mask_;
    l.last_use = ++clock_;
    return ev;
  }
  void invalidate_all() {
    for (Line& l : lines_) l = Line{};
  }
  void set_ways(uint32_t ways) {
    ways_in_use_ = ways;
    invalidate_all();
  }
  uint32_t valid_lines() const {
    uint32_t n = 0;
    for (const Line& l : lines_) n += l.present;
    return n;
  }
  uint32_t valid_sectors() const {
    uint32_t n = 0;
    for (const Line& l : lines_) n += uint32_t(std::popcount(l.valid));
    return n;
  }
  uint32_t dirty_sectors() const {
    uint32_t n = 0;
    for (const Line& l : lines_) n += uint32_t(std::popcount(l.dirty));
    return n;
  }

 private:
  struct Line {
    bool present = false;
    uint64_t tag = 0;
    uint64_t last_use = 0;
    uint32_t valid = 0;
    uint32_t dirty = 0;
    std::array<uint32_t, kMaxSectorsPerLine> masks{};
  };
  uint64_t tag_of(uint64_t addr) const { return addr / g_.line_bytes; }
  uint32_t sector_in_line(uint64_t addr) const { return uint32_t(addr % g_.line_bytes / g_.sector_bytes); }
  uint32_t set_of(uint64_t addr) const {
    return index_hash(g_.set_hash, tag_of(addr), uint32_t(std::countr_zero(g_.sets)));
  }
  Line& line(uint32_t set, uint32_t way) { return lines_[size_t(set) * g_.ways + way]; }
  const Line& line(uint32_t set, uint32_t way) const { return lines_[size_t(set) * g_.ways + way]; }
  int find(uint64_t addr) const {
    for (uint32_t w = 0; w < ways_in_use_; ++w) {
      const Line& l = line(set_of(addr), w);
      if (l.present && l.tag == tag_of(addr)) return int(w);
    }
    return -1;
  }
  uint32_t victim(uint32_t set) const {
    uint32_t best = 0;
    for (uint32_t w = 0; w < ways_in_use_; ++w) {
      if (!line(set, w).present) return w;
      if (line(set, w).last_use < line(set, best).last_use) best = w;
    }
    return best;
  }
  Eviction eviction_of(uint32_t set, uint32_t way) const {
    Eviction ev;
    const Line& l = line(set, way);
    if (!l.present) return ev;
    ev.valid = true;
    ev.line_addr = l.tag * g_.line_bytes;
    ev.valid_sectors = l.valid;
    ev.dirty_sectors = l.dirty;
    return ev;
  }
  // The line holding addr, allocated (evicting into *ev) when absent.
  Line& locate(uint64_t addr, Eviction* ev) {
    const int w = find(addr);
    if (w >= 0) return line(set_of(addr), uint32_t(w));
    const uint32_t set = set_of(addr);
    const uint32_t v = victim(set);
    *ev = eviction_of(set, v);
    Line& l = line(set, v);
    l = Line{};
    l.present = true;
    l.tag = tag_of(addr);
    return l;
  }

  SectorCacheGeometry g_;
  uint32_t ways_in_use_;
  uint32_t full_mask_;
  uint64_t clock_ = 0;
  std::vector<Line> lines_;
};

// Valid evictions compared by assert_same_eviction (the equivalence runs must evict).
uint64_t g_evictions_compared = 0;

void assert_same_eviction(const Eviction& got, const Eviction& want, uint64_t step) {
  ASSERT_EQ(got.valid, want.valid) << "step " << step;
  g_evictions_compared += want.valid;
  ASSERT_EQ(got.line_addr, want.line_addr) << "step " << step;
  ASSERT_EQ(got.valid_sectors, want.valid_sectors) << "step " << step;
  ASSERT_EQ(got.dirty_sectors, want.dirty_sectors) << "step " << step;
}

// The line-granular calls on the reference, as the header defines them: the
// per-sector calls in ascending sector order (the evictions of a line's
// sectors are at most one).
uint32_t sector_bit(uint32_t s) { return 1u << s; }

Eviction reference_fill_sectors(ReferenceSectorCache& ref, const SectorCacheGeometry& g, uint64_t line, uint32_t sectors) {
  Eviction ev;
  for (uint32_t s = 0; s < g.sectors_per_line(); ++s)
    if (sectors & sector_bit(s))
      if (const Eviction e = ref.fill(line + uint64_t(s) * g.sector_bytes); e.valid) ev = e;
  return ev;
}

Eviction reference_write_sectors(ReferenceSectorCache& ref, const SectorCacheGeometry& g, uint64_t line,
                                 uint32_t sectors, const uint32_t* bytes, bool allocate) {
  Eviction ev;
  for (uint32_t s = 0; s < g.sectors_per_line(); ++s)
    if (sectors & sector_bit(s))
      if (const Eviction e = ref.write(line + uint64_t(s) * g.sector_bytes, bytes[s], allocate); e.valid) ev = e;
  return ev;
}

uint32_t reference_readable_sectors(const ReferenceSectorCache& ref, const SectorCacheGeometry& g, uint64_t line,
                                    uint32_t sectors) {
  uint32_t readable = 0;
  for (uint32_t s = 0; s < g.sectors_per_line(); ++s)
    if (sectors & sector_bit(s) && ref.probe(line + uint64_t(s) * g.sector_bytes) == SectorState::kHit)
      readable |= sector_bit(s);
  return readable;
}

uint32_t reference_read_hit_sectors(ReferenceSectorCache& ref, const SectorCacheGeometry& g, uint64_t line,
                                    uint32_t sectors) {
  uint32_t hits = 0;
  for (uint32_t s = 0; s < g.sectors_per_line(); ++s)
    if (sectors & sector_bit(s) && ref.read_hit(line + uint64_t(s) * g.sector_bytes)) hits |= sector_bit(s);
  return hits;
}

// Drives both caches with the same random operations over a pool of lines three
// times the capacity (hits, sector misses, evictions), with rare far addresses,
// invalidations and way-count changes; every return value must agree. The
// operations are every public call: per sector (probe, touch, read_hit, fill,
// write, victim_of, byte_mask) and per line (fill_sectors, write_sectors with
// per-sector or shared bytes, readable_sectors, read_hit_sectors).
// (first_ways: the ways enabled at the start; max_ways_after_change: the most
// a way-count change enables, to keep a huge set small enough to fill.)
void run_equivalence(const SectorCacheGeometry& g, uint64_t steps, uint64_t seed, uint32_t first_ways = 0,
                     uint32_t max_ways_after_change = 0xffffffffu) {
  SectorCache fast(g);
  ReferenceSectorCache ref(g);
  if (first_ways != 0) {
    fast.set_ways(first_ways);
    ref.set_ways(first_ways);
  }
  const uint64_t evictions_before = g_evictions_compared;
  std::mt19937_64 rng(seed);
  const uint64_t pool_lines = uint64_t(g.sets) * std::min(g.ways, max_ways_after_change) * 3;
  auto random_addr = [&] {
    uint64_t line = rng() % pool_lines;
    if (rng() % 16 == 0) line += (rng() % 1024) << 28;  // far away: different high bits
    return line * g.line_bytes + rng() % g.line_bytes;
  };
  auto random_mask = [&] {
    const uint64_t r = rng();
    return r % 4 == 0 ? 0xffffffffu : uint32_t(r >> 8);
  };
  const uint32_t all_sectors = g.sectors_per_line() == 32 ? 0xffffffffu : (1u << g.sectors_per_line()) - 1;
  for (uint64_t step = 0; step < steps; ++step) {
    const uint64_t addr = random_addr();
    const uint64_t line = addr / g.line_bytes * g.line_bytes;
    const uint32_t op = uint32_t(rng() % 1000);
    // A line-granular call's sectors: all of them, or a random subset.
    const uint32_t sectors = rng() % 2 == 0 ? all_sectors : uint32_t(rng()) & all_sectors;
    if (op < 200) {
      ASSERT_EQ(fast.probe(addr), ref.probe(addr)) << "step " << step;
    } else if (op < 260) {
      ASSERT_EQ(fast.touch(addr), ref.touch(addr)) << "step " << step;
    } else if (op < 320) {
      ASSERT_EQ(fast.read_hit(addr), ref.read_hit(addr)) << "step " << step;
    } else if (op < 380) {
      ASSERT_EQ(fast.readable_sectors(line, sectors), reference_readable_sectors(ref, g, line, sectors))
          << "step " << step;
    } else if (op < 440) {
      ASSERT_EQ(fast.read_hit_sectors(line, sectors), reference_read_hit_sectors(ref, g, line, sectors))
          << "step " << step;
    } else if (op < 500) {
      ASSERT_NO_FATAL_FAILURE(
          assert_same_eviction(fast.fill_sectors(line, sectors), reference_fill_sectors(ref, g, line, sectors), step));
    } else if (op < 560) {
      std::array<uint32_t, kMaxSectorsPerLine> bytes{};
      for (uint32_t& b : bytes) b = random_mask();
      const bool allocate = rng() % 2 == 0;
      if (rng() % 2 == 0) {
        ASSERT_NO_FATAL_FAILURE(assert_same_eviction(fast.write_sectors(line, sectors, bytes.data(), allocate),
                                                     reference_write_sectors(ref, g, line, sectors, bytes.data(), allocate),
                                                     step));
      } else {
        bytes.fill(bytes[0]);
        ASSERT_NO_FATAL_FAILURE(assert_same_eviction(fast.write_sectors(line, sectors, bytes[0], allocate),
                                                     reference_write_sectors(ref, g, line, sectors, bytes.data(), allocate),
                                                     step));
      }
    } else if (op < 650) {
      ASSERT_NO_FATAL_FAILURE(assert_same_eviction(fast.fill(addr), ref.fill(addr), step));
    } else if (op < 900) {
      const uint32_t mask = random_mask();
      const bool allocate = rng() % 2 == 0;
      ASSERT_NO_FATAL_FAILURE(assert_same_eviction(fast.write(addr, mask, allocate), ref.write(addr, mask, allocate), step));
    } else if (op < 950) {
      ASSERT_NO_FATAL_FAILURE(assert_same_eviction(fast.victim_of(addr), ref.victim_of(addr), step));
    } else {
      ASSERT_EQ(fast.byte_mask(addr), ref.byte_mask(addr)) << "step " << step;
    }
    // Invalidations and way-count changes, each about once per 32 times the
    // lines enabled: a cache mostly fills and evicts before it is emptied.
    const uint64_t lines = uint64_t(g.sets) * fast.ways_in_use();
    if (rng() % (32 * lines) == 0) {
      fast.invalidate_all();
      ref.invalidate_all();
    }
    if (rng() % (32 * lines) == 0) {
      const uint32_t ways = 1 + uint32_t(rng() % std::min<uint32_t>(g.ways, max_ways_after_change));
      fast.set_ways(ways);
      ref.set_ways(ways);
      ASSERT_EQ(fast.ways_in_use(), ways);
    }
    if (step % 997 == 0) {
      ASSERT_EQ(fast.valid_lines(), ref.valid_lines()) << "step " << step;
      ASSERT_EQ(fast.valid_sectors(), ref.valid_sectors()) << "step " << step;
      ASSERT_EQ(fast.dirty_sectors(), ref.dirty_sectors()) << "step " << step;
    }
  }
  EXPECT_EQ(fast.valid_lines(), ref.valid_lines());
  EXPECT_EQ(fast.valid_sectors(), ref.valid_sectors());
  EXPECT_EQ(fast.dirty_sectors(), ref.dirty_sectors());
  // The victim choice was exercised: at least one step in 20 evicted a line.
  EXPECT_GE(g_evictions_compared - evictions_before, steps / 20);
}

SectorCacheGeometry geometry(uint32_t sets, uint32_t ways, uint32_t line_bytes, uint32_t sector_bytes,
                             IndexHash hash, WritePolicy policy) {
  SectorCacheGeometry g;
  g.sets = sets;
  g.ways = ways;
  g.line_bytes = line_bytes;
  g.sector_bytes = sector_bytes;
  g.set_hash = hash;
  g.write_policy = policy;
  return g;
}

TEST(SectorCacheEquivalence, AdaptiveL1FourSetsOf256WaysMatchesTheLinearScanModel) {
  run_equivalence(geometry(4, 256, 128, 32, IndexHash::kLinear, WritePolicy::kWriteThrough), 100000, 1);
}

TEST(SectorCacheEquivalence, L2Slice32SetsOf24WaysMatchesTheLinearScanModel) {
  run_equivalence(geometry(32, 24, 128, 32, IndexHash::kIpoly, WritePolicy::kWriteBack), 100000, 2);
}

TEST(SectorCacheEquivalence, OtherGpusGeometriesMatchTheLinearScanModel) {
  // H100's adaptive L1 (4 sets of up to 512 ways), A100's L2 slice (XOR set hash),
  // GTX1080's fixed 96-way L1, an instruction cache (one sector per line).
  run_equivalence(geometry(4, 512, 128, 32, IndexHash::kLinear, WritePolicy::kWriteThrough), 100000, 7);
  run_equivalence(geometry(128, 16, 128, 32, IndexHash::kXor, WritePolicy::kWriteBack), 100000, 8);
  run_equivalence(geometry(4, 96, 128, 32, IndexHash::kLinear, WritePolicy::kWriteThrough), 50000, 9);
  run_equivalence(geometry(64, 16, 32, 32, IndexHash::kLinear, WritePolicy::kWriteThrough), 50000, 10);
}

TEST(SectorCacheEquivalence, OneVeryLargeSetMatchesTheLinearScanModel) {
  // One set of more than 2^14 ways (with 1 .. 100 of them enabled, so that
  // the set fills and evicts).
  run_equivalence(geometry(1, (1u << 14) + 3, 128, 32, IndexHash::kLinear, WritePolicy::kWriteBack), 20000, 11, 40,
                  100);
}

// Either way of finding a tag (TagLookup) on any geometry, whichever kAuto
// would choose: an L2 slice's 24 ways through the index, an adaptive L1's
// 256 ways and a 1-way cache by scanning, odd shapes both ways.
SectorCacheGeometry with_lookup(SectorCacheGeometry g, TagLookup lookup) {
  g.tag_lookup = lookup;
  return g;
}

TEST(SectorCacheEquivalence, BothTagLookupsMatchTheLinearScanModelOnAnyGeometry) {
  EXPECT_TRUE(SectorCache(geometry(32, 24, 128, 32, IndexHash::kIpoly, WritePolicy::kWriteBack)).scans_sets());
  EXPECT_FALSE(SectorCache(geometry(4, 256, 128, 32, IndexHash::kLinear, WritePolicy::kWriteThrough)).scans_sets());
  for (TagLookup lookup : {TagLookup::kIndex, TagLookup::kScan}) {
    SCOPED_TRACE(lookup == TagLookup::kIndex ? "index" : "scan");
    EXPECT_EQ(SectorCache(with_lookup(geometry(2, 2, 128, 32, IndexHash::kLinear, WritePolicy::kWriteBack), lookup))
                  .scans_sets(),
              lookup == TagLookup::kScan);
    run_equivalence(with_lookup(geometry(32, 24, 128, 32, IndexHash::kIpoly, WritePolicy::kWriteBack), lookup), 60000, 12);
    run_equivalence(with_lookup(geometry(4, 256, 128, 32, IndexHash::kLinear, WritePolicy::kWriteThrough), lookup), 60000,
                    13);
    run_equivalence(with_lookup(geometry(64, 1, 32, 32, IndexHash::kIpoly, WritePolicy::kWriteBack), lookup), 20000, 14);
    run_equivalence(with_lookup(geometry(16, 5, 256, 8, IndexHash::kXor, WritePolicy::kWriteThrough), lookup), 20000, 15);
    run_equivalence(with_lookup(geometry(1, 7, 64, 16, IndexHash::kLinear, WritePolicy::kWriteBack), lookup), 20000, 16,
                    3);
  }
}

TEST(SectorCacheEquivalence, SmallAndOddGeometriesMatchTheLinearScanModel) {
  run_equivalence(geometry(2, 2, 128, 32, IndexHash::kLinear, WritePolicy::kWriteBack), 30000, 3);
  run_equivalence(geometry(1, 7, 64, 16, IndexHash::kLinear, WritePolicy::kWriteBack), 30000, 4);
  run_equivalence(geometry(16, 5, 256, 8, IndexHash::kXor, WritePolicy::kWriteThrough), 30000, 5);
  run_equivalence(geometry(64, 1, 32, 32, IndexHash::kIpoly, WritePolicy::kWriteBack), 30000, 6);
}

}  // namespace
}  // namespace lockstep

namespace lockstep {
namespace {

// The line-granular forms against the per-sector calls in ascending sector
// order, on a random mix of fills, write-validate writes (with and without
// allocation; per-sector bytes or the same bytes for all), reads and read
// hits over lines that contend for 2 sets x 2 ways (the LRU order shows in
// the later evictions).
TEST(SectorCacheLineForms, MatchTheSectorBySectorCalls) {
  SectorCache by_sector(small()), by_line(small());
  std::mt19937_64 rng(7);
  auto same_eviction = [](const Eviction& a, const Eviction& b) {
    return a.valid == b.valid && (!a.valid || (a.line_addr == b.line_addr && a.valid_sectors == b.valid_sectors &&
                                               a.dirty_sectors == b.dirty_sectors));
  };
  for (int step = 0; step < 20000; ++step) {
    const uint64_t line = (rng() % 12) * kLine;
    const uint32_t sectors = uint32_t(rng() % 16);
    std::array<uint32_t, 4> bytes{};
    for (uint32_t& b : bytes) b = rng() % 3 == 0 ? 0xffffffffu : uint32_t(rng());
    const int op = int(rng() % 6);
    Eviction a, b;
    if (op == 0) {
      b = by_line.fill_sectors(line, sectors);
      for (uint32_t s = 0; s < 4; ++s)
        if (sectors >> s & 1) {
          const Eviction e = by_sector.fill(line + 32 * s);
          if (e.valid) a = e;
        }
    } else if (op == 1 || op == 2) {
      const bool allocate = op == 1;
      b = by_line.write_sectors(line, sectors, bytes.data(), allocate);
      for (uint32_t s = 0; s < 4; ++s)
        if (sectors >> s & 1) {
          const Eviction e = by_sector.write(line + 32 * s, bytes[s], allocate);
          if (e.valid) a = e;
        }
    } else if (op == 3) {
      // The same bytes in every sector (an L2 request of a line).
      const bool allocate = rng() % 2 == 0;
      b = by_line.write_sectors(line, sectors, bytes[0], allocate);
      for (uint32_t s = 0; s < 4; ++s)
        if (sectors >> s & 1) {
          const Eviction e = by_sector.write(line + 32 * s, bytes[0], allocate);
          if (e.valid) a = e;
        }
    } else if (op == 4) {
      uint32_t readable = 0;
      for (uint32_t s = 0; s < 4; ++s)
        if (sectors >> s & 1 && by_sector.probe(line + 32 * s) == SectorState::kHit) readable |= 1u << s;
      ASSERT_EQ(by_line.readable_sectors(line, sectors), readable) << "step " << step;
      if (readable) {
        by_sector.touch(line);
        by_line.touch(line);
      }
    } else {
      uint32_t hits = 0;
      for (uint32_t s = 0; s < 4; ++s)
        if (sectors >> s & 1 && by_sector.read_hit(line + 32 * s)) hits |= 1u << s;
      ASSERT_EQ(by_line.read_hit_sectors(line, sectors), hits) << "step " << step;
    }
    ASSERT_TRUE(same_eviction(a, b)) << "step " << step;
    for (uint64_t l = 0; l < 12; ++l)
      for (uint32_t s = 0; s < 4; ++s) {
        ASSERT_EQ(by_line.probe(l * kLine + 32 * s), by_sector.probe(l * kLine + 32 * s)) << "step " << step;
        ASSERT_EQ(by_line.byte_mask(l * kLine + 32 * s), by_sector.byte_mask(l * kLine + 32 * s)) << "step " << step;
      }
    ASSERT_EQ(by_line.dirty_sectors(), by_sector.dirty_sectors()) << "step " << step;
  }
}

}  // namespace
}  // namespace lockstep

namespace lockstep {
namespace {

// set_of() under ipoly remembers the hash of the line number's high half:
// the same set as the hash of the whole line number, whatever the order.
TEST(SectorCacheSets, IpolySetOfMatchesTheHashOfTheWholeLineNumber) {
  for (const uint32_t sets : {1u, 2u, 32u, 64u, 1024u}) {
    SectorCacheGeometry g;
    g.sets = sets;
    g.ways = 4;
    g.set_hash = IndexHash::kIpoly;
    const SectorCache cache(g);
    const uint32_t bits = uint32_t(std::countr_zero(sets));
    std::mt19937_64 rng(sets);
    for (int i = 0; i < 2000; ++i) {
      const uint64_t high = i % 3 == 0 ? 0 : (i % 3 == 1 ? rng() & 0xff : rng());
      const uint64_t addr = (high << 39) | (rng() & ((uint64_t(1) << 39) - 1));
      EXPECT_EQ(cache.set_of(addr), index_hash(IndexHash::kIpoly, addr >> 7, bits)) << std::hex << addr;
    }
  }
}

}  // namespace
}  // namespace lockstep
