// The L2's cache decisions called without time (l2_cache_policy.h): reads
// and atomics need a readable sector, lazy fetch on read of a partly written
// sector, write-validate without fetch, write-backs of dirty sectors only,
// fills keeping written bytes, and the copy engine's warm data.
#include "memsys/l2_cache_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "memsys/copy_engine.h"

namespace lockstep {
namespace {

// One set of `ways` ways, 128 B lines of four 32 B sectors, linear set index.
L2Spec one_set(uint32_t ways) {
  L2Spec s;
  s.sets = 1;
  s.ways = ways;
  s.line_bytes = 128;
  s.sector_bytes = 32;
  s.set_hash = IndexHash::kLinear;
  return s;
}

std::vector<uint64_t> sectors_of(const VictimWriteBacks& wb) {
  std::vector<uint64_t> out;
  wb.for_each([&](uint64_t a) { out.push_back(a); });
  return out;
}

TEST(L2CachePolicy, ReadOfAnAbsentSectorFetchesAndHitsAfterTheFill) {
  L2CachePolicy p(one_set(2));
  EXPECT_EQ(p.lookup(0x40), SectorState::kLineMiss);
  EXPECT_FALSE(L2CachePolicy::readable(p.lookup(0x40)));
  EXPECT_EQ(p.fill(0x40).count(), 0u);
  EXPECT_TRUE(L2CachePolicy::readable(p.lookup(0x44)));
  // The other sectors of the line are sector misses: fetched, not hits.
  EXPECT_EQ(p.lookup(0x00), SectorState::kSectorMiss);
  EXPECT_EQ(p.sectors_to_fetch(0x00, 0xf), 0xbu);
}

TEST(L2CachePolicy, WriteValidateNeverFetchesAndAPartlyWrittenSectorIsFetchedOnRead) {
  L2CachePolicy p(one_set(2));
  // A write to an absent line allocates it without a DRAM read: a write miss.
  EXPECT_FALSE(L2CachePolicy::write_hit(p.lookup(0x80)));
  EXPECT_EQ(p.write(0x80, 0x0000000f).count(), 0u);
  EXPECT_TRUE(L2CachePolicy::write_hit(p.lookup(0x84)));
  // 4 of 32 bytes present: a read must fetch and merge (lazy fetch on read).
  EXPECT_EQ(p.lookup(0x80), SectorState::kPartial);
  EXPECT_FALSE(L2CachePolicy::readable(p.lookup(0x80)));
  EXPECT_EQ(p.sectors_to_fetch(0x80, 0x1), 0x1u);
  // The fill completes it and keeps the written bytes dirty.
  p.fill(0x80);
  EXPECT_TRUE(L2CachePolicy::readable(p.lookup(0x80)));
  EXPECT_EQ(p.cache().dirty_sectors(), 1u);
}

TEST(L2CachePolicy, WritesCoveringASectorMakeItReadableWithoutDram) {
  L2CachePolicy p(one_set(2));
  p.write(0x20, 0x0000ffff);
  EXPECT_FALSE(L2CachePolicy::readable(p.lookup(0x20)));
  p.write(0x20, 0xffff0000);
  EXPECT_TRUE(L2CachePolicy::readable(p.lookup(0x20)));
  EXPECT_EQ(p.sectors_to_fetch(0x00, 0xf), 0xdu);  // sectors 0, 2, 3 were never written
}

TEST(L2CachePolicy, EvictionWritesBackTheVictimsDirtySectorsOnly) {
  L2CachePolicy p(one_set(2));
  p.write(0x20, 0xffffffff);  // line 0, sector 1: dirty
  p.write(0x60, 0x0000000f);  // line 0, sector 3: dirty, partly written
  p.fill(0x00);               // line 0, sector 0: clean; line 0 most recently used
  p.write(0x80, 0xffffffff);  // line 1: most recently used
  p.hit(0x00);                // a read hit makes line 0 most recently used again
  // Line 2 evicts the LRU line, now line 1 (one dirty sector).
  EXPECT_EQ(p.writebacks_needed(0x100), 1u);
  EXPECT_EQ(sectors_of(p.write(0x100, 0xffffffff)), std::vector<uint64_t>{0x80});
  // A fill of line 3 evicts line 0: sectors 1 and 3 are written back, not the clean sector 0.
  EXPECT_EQ(p.writebacks_needed(0x180), 2u);
  const VictimWriteBacks wb = p.fill(0x180);
  EXPECT_EQ(sectors_of(wb), (std::vector<uint64_t>{0x20, 0x60}));
  EXPECT_EQ(p.lookup(0x00), SectorState::kLineMiss);
}

TEST(L2CachePolicy, AtomicsNeedAReadableSectorThenWriteTheirBytes) {
  L2CachePolicy p(one_set(2));
  p.write(0x40, 0x000000ff);  // a store left 8 bytes
  EXPECT_FALSE(L2CachePolicy::readable(p.lookup(0x40)));  // the atomic must fetch first
  p.fill(0x40);
  ASSERT_TRUE(L2CachePolicy::readable(p.lookup(0x40)));
  p.hit(0x40);
  p.write(0x40, 0x0000f000);  // the atomic unit's read-modify-write
  EXPECT_TRUE(L2CachePolicy::readable(p.lookup(0x40)));
  EXPECT_EQ(p.cache().byte_mask(0x40), 0xffffffffu);
  EXPECT_EQ(p.cache().dirty_sectors(), 1u);
}

TEST(L2CachePolicy, WarmInstallsTheCopiedBytesDirtyAndDropsVictims) {
  L2CachePolicy p(one_set(1));
  p.warm(0x04, 8);  // bytes 4..11 of sector 0
  EXPECT_EQ(p.cache().byte_mask(0x00), 0x00000ff0u);
  EXPECT_EQ(p.cache().dirty_sectors(), 1u);
  p.warm(0x80, 32);  // the next line evicts the first in a one-way set
  EXPECT_EQ(p.lookup(0x00), SectorState::kLineMiss);
  EXPECT_TRUE(L2CachePolicy::readable(p.lookup(0x80)));
  EXPECT_THROW(p.warm(0x1c, 8), std::invalid_argument);  // crosses a sector
}

// The copy as the copy engine once wrote it: visit(addr, bytes) for each
// piece of the copied bytes that can stay in the L2, in address order, no
// piece crossing a sector.
template <typename Visit>
void for_each_copied_piece(uint64_t addr, uint64_t bytes, uint64_t l2_bytes, uint32_t sector_bytes, Visit&& visit) {
  if (bytes > l2_bytes) {
    addr += bytes - l2_bytes;
    bytes = l2_bytes;
  }
  for (uint64_t a = addr; a < addr + bytes;) {
    const uint64_t end = std::min(addr + bytes, (a / sector_bytes + 1) * sector_bytes);
    visit(a, uint32_t(end - a));
    a = end;
  }
}

TEST(L2CachePolicy, ACopyWarmedLineByLineLeavesTheCacheAsItsPiecesOneAfterAnother) {
  // The copy engine writes a line's pieces with one lookup (for_each_copied_line,
  // warm_line): same lines, bytes and recency as one warm() per piece, so
  // later copies evict the same victims.
  std::mt19937_64 rng(7);
  for (const auto& [line_bytes, sector_bytes] : {std::pair{128u, 32u}, {64u, 16u}, {256u, 32u}, {32u, 8u}}) {
    L2Spec spec = one_set(3);
    spec.sets = 4;
    spec.line_bytes = line_bytes;
    spec.sector_bytes = sector_bytes;
    L2CachePolicy by_piece(spec), by_line(spec);
    const uint64_t space = 64 * line_bytes;  // addresses copied to, several times the cache
    const uint64_t l2_bytes = uint64_t(spec.sets) * spec.ways * line_bytes;
    for (int copy = 0; copy < 200; ++copy) {
      const uint64_t addr = rng() % space;
      const uint64_t bytes = 1 + rng() % (copy % 4 == 0 ? 2 * l2_bytes : 3 * line_bytes);
      for_each_copied_piece(addr, bytes, l2_bytes, sector_bytes, [&](uint64_t a, uint32_t n) { by_piece.warm(a, n); });
      for_each_copied_line(addr, bytes, l2_bytes, line_bytes, sector_bytes,
                           [&](uint64_t line, uint32_t sectors, const uint32_t* masks) {
                             by_line.warm_line(line, sectors, masks);
                           });
      for (uint64_t a = 0; a < space + 2 * l2_bytes; a += sector_bytes) {
        ASSERT_EQ(by_line.lookup(a), by_piece.lookup(a)) << "line " << line_bytes << ", copy " << copy << ", sector 0x"
                                                         << std::hex << a;
        if (by_piece.lookup(a) != SectorState::kLineMiss && by_piece.lookup(a) != SectorState::kSectorMiss) {
          ASSERT_EQ(by_line.cache().byte_mask(a), by_piece.cache().byte_mask(a)) << "copy " << copy;
        }
      }
      ASSERT_EQ(by_line.cache().dirty_sectors(), by_piece.cache().dirty_sectors());
    }
  }
}

}  // namespace
}  // namespace lockstep
