// SectorCache: line-granular tags, sector-granular fills, LRU, write-validate masks.
#include "memsys/sector_cache.h"

#include <gtest/gtest.h>

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
  // Eviction reports the dirty sectors and what they hold.
  c.fill(2 * kLine);
  const Eviction ev = c.fill(4 * kLine);
  ASSERT_TRUE(ev.valid);
  EXPECT_EQ(ev.line_addr, 0u);
  EXPECT_EQ(ev.dirty_sectors, 0b0110u);
  EXPECT_EQ(ev.byte_masks[1], 0xffffffffu);
  EXPECT_EQ(ev.byte_masks[2], 0xffffffffu);
  EXPECT_EQ(ev.byte_masks[0], 0u);
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

}  // namespace
}  // namespace lockstep
