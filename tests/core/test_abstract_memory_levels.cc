// The abstract model's hit-level source (core/abstract/memory_levels.h):
// capacity-bounded caches, DRAM write-backs of stores, and the L2 / DRAM
// bandwidth a kernel's SMs share.
#include <gtest/gtest.h>

#include <array>
#include <numeric>

#include "configs/spec/gpu_config.h"
#include "core/abstract/memory_levels.h"

namespace lockstep {
namespace {

constexpr std::array<uint32_t, 4> kFullLine = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};

uint64_t sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t(0)); }

// Reads `lines` consecutive lines from address 0 (not through the L1), then line 0 again: its level.
HitLevel level_of_first_line_after_reading(uint64_t lines) {
  const GpuSpec spec = load_gpu_spec("QV100", {});
  CacheHitLevels levels(spec);
  levels.start_kernel(32);
  for (uint64_t l = 0; l < lines; ++l) levels.access(0, l * 128, 0xf, kFullLine, LineAccessKind::kLoadUncached);
  return levels.access(0, 0, 0xf, kFullLine, LineAccessKind::kLoadUncached).level;
}

TEST(AbstractMemoryLevels, AnArrayLargerThanTheL2MissesWhenReadAgain) {
  const uint64_t l2_lines = load_gpu_spec("QV100", {}).memory.l2_bytes() / 128;
  // A quarter of the L2: still there (no set is full: 24 ways, 6 lines a set on average).
  EXPECT_EQ(level_of_first_line_after_reading(l2_lines / 4), HitLevel::kL2);
  // Twice the L2: LRU pushed line 0 out long ago.
  EXPECT_EQ(level_of_first_line_after_reading(2 * l2_lines), HitLevel::kDram);
}

TEST(AbstractMemoryLevels, AnArrayLargerThanTheL1MissesItWhenReadAgain) {
  const GpuSpec spec = load_gpu_spec("QV100", {});
  CacheHitLevels levels(spec);
  const uint32_t l1_kb = 32;
  levels.start_kernel(l1_kb);
  auto first_line_after = [&](uint64_t lines) {
    levels.start_kernel(l1_kb);
    for (uint64_t l = 0; l < lines; ++l) levels.access(3, l * 128, 0xf, kFullLine, LineAccessKind::kLoad);
    return levels.access(3, 0, 0xf, kFullLine, LineAccessKind::kLoad).level;
  };
  EXPECT_EQ(first_line_after(l1_kb * 1024 / 128 / 2), HitLevel::kL1);
  EXPECT_EQ(first_line_after(2 * l1_kb * 1024 / 128), HitLevel::kL2);  // the L2 still has it
}

TEST(AbstractMemoryLevels, StoresCostDramWriteBacksWhenTheirDirtyLinesAreEvicted) {
  const GpuSpec spec = load_gpu_spec("QV100", {});
  CacheHitLevels levels(spec);
  levels.start_kernel(32);
  const uint64_t l2_lines = spec.memory.l2_bytes() / 128, lines = 2 * l2_lines;
  uint64_t writebacks = 0, reads = 0;
  for (uint64_t l = 0; l < lines; ++l) {
    const LineCost c = levels.access(0, l * 128, 0xf, kFullLine, LineAccessKind::kStore);
    EXPECT_EQ(c.level, HitLevel::kL2);
    writebacks += c.dram_writebacks;
    reads += c.dram_reads;
  }
  // Write-validate: nothing read. Every line written dirty (4 sectors); at
  // most the L2's capacity of them is still held at the end, the rest were
  // written back.
  EXPECT_EQ(reads, 0u);
  EXPECT_GE(writebacks, 4 * (lines - l2_lines));
  EXPECT_LE(writebacks, 4 * lines);
  EXPECT_EQ(sum(levels.traffic().channel_sectors), writebacks);
  EXPECT_EQ(levels.traffic().sm_dram_sectors[0], writebacks);
  EXPECT_EQ(sum(levels.traffic().slice_sectors), 4 * lines);
}

TEST(AbstractMemoryLevels, TheSmsOfAKernelShareTheBusiestChannelsBandwidth) {
  MemoryLatencies l;
  l.channel_sector_cost = 100;
  l.slice_sector_cost = 10;
  KernelTraffic t;
  t.sm_l2_sectors = {64, 64};
  t.sm_dram_sectors = {64, 64};
  // Spread evenly over 32 channels / 64 slices: 4 sectors a channel, 2 a slice.
  t.channel_sectors.assign(32, 4);
  t.slice_sectors.assign(64, 2);
  share_bandwidth(l, t);
  // The busiest channel needs 4 * 100; the SM with the most traffic (64) takes that long.
  EXPECT_EQ(l.dram_sector_cost, (4u * 100 + 63) / 64);
  EXPECT_EQ(l.l2_sector_cost, (2u * 10 + 63) / 64);
  // Every sector in one channel and one slice: they queue there.
  t.channel_sectors.assign(32, 0);
  t.channel_sectors[5] = 128;
  t.slice_sectors.assign(64, 0);
  t.slice_sectors[9] = 128;
  share_bandwidth(l, t);
  EXPECT_EQ(l.dram_sector_cost, 128u * 100 / 64);
  EXPECT_EQ(l.l2_sector_cost, 128u * 10 / 64);
}

}  // namespace
}  // namespace lockstep
