// Block slots: residency, acceptance, warp slots, barriers and retirement.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/block_slots.h"

namespace lockstep {
namespace {

SmSpec small_sm() {
  SmSpec s;
  s.max_warps = 8;
  s.max_blocks = 4;
  return s;
}
KernelLaunch launch(uint32_t kernel, uint32_t warps_per_block, uint32_t blocks_per_sm = 4) {
  KernelLaunch l;
  l.kernel_index = kernel;
  l.warps_per_block = warps_per_block;
  l.occupancy.blocks_per_sm = blocks_per_sm;
  return l;
}
std::unique_ptr<BlockTrace> block_of(uint32_t warps, uint32_t x = 0) {
  auto b = std::make_unique<BlockTrace>();
  b->id = Dim3{x, 0, 0};
  b->warps.resize(warps);
  return b;
}

TEST(BlockSlots, OneKernelPerSmAtATime) {
  const SmSpec spec = small_sm();
  BlockSlots slots(spec);
  EXPECT_TRUE(slots.can_accept(slots.residency(), launch(7, 2), spec));
  slots.accept(launch(7, 2), block_of(2));
  EXPECT_TRUE(BlockSlots::can_accept(slots.residency(), launch(7, 2), spec));
  EXPECT_FALSE(BlockSlots::can_accept(slots.residency(), launch(8, 2), spec));
  EXPECT_EQ(slots.current_kernel(), 7u);
}

TEST(BlockSlots, WarpAndBlockLimits) {
  const SmSpec spec = small_sm();  // 8 warps
  BlockSlots slots(spec);
  slots.accept(launch(0, 3), block_of(3));
  slots.accept(launch(0, 3), block_of(3));
  EXPECT_EQ(slots.residency(), (BlockSlots::Residency{2, 6, 0}));
  EXPECT_FALSE(BlockSlots::can_accept(slots.residency(), launch(0, 3), spec));  // 9 warps > 8
  EXPECT_TRUE(BlockSlots::can_accept(slots.residency(), launch(0, 2), spec));   // exactly 8
  EXPECT_FALSE(BlockSlots::can_accept(slots.residency(), launch(0, 1, 2), spec));  // blocks_per_sm = 2
}

TEST(BlockSlots, WarpsTakeTheLowestFreeSlots) {
  BlockSlots slots(small_sm());
  const uint32_t a = slots.accept(launch(0, 3), block_of(3));
  slots.finish_warp(a, 1);
  const uint32_t b = slots.accept(launch(0, 2), block_of(2));
  EXPECT_NE(a, b);
  const std::vector<uint32_t> got(slots.warp_slots(b).begin(), slots.warp_slots(b).end());
  EXPECT_EQ(got, (std::vector<uint32_t>{1, 3}));
}

TEST(BlockSlots, TheBarrierOpensWhenTheLastLiveWarpArrives) {
  BlockSlots slots(small_sm());
  const uint32_t b = slots.accept(launch(0, 3), block_of(3));
  slots.arrive_at_barrier(b);
  slots.arrive_at_barrier(b);
  EXPECT_FALSE(slots.barriers_opened());
  slots.arrive_at_barrier(b);
  EXPECT_TRUE(slots.barriers_opened());
  std::vector<uint32_t> released;
  slots.release_barriers([&](uint32_t w) { released.push_back(w); });
  EXPECT_EQ(released, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_FALSE(slots.barriers_opened());
}

TEST(BlockSlots, TheBarrierOpensWhenTheLastWarpNotThereExits) {
  BlockSlots slots(small_sm());
  const uint32_t b = slots.accept(launch(0, 3), block_of(3));
  slots.arrive_at_barrier(b);
  slots.arrive_at_barrier(b);
  slots.finish_warp(b, 2);
  EXPECT_TRUE(slots.barriers_opened());
  EXPECT_EQ(slots.residency().warps, 2u);
}

TEST(BlockSlots, TheLastWarpRetiresTheBlockAndKeepsItsTrace) {
  BlockSlots slots(small_sm());
  const uint32_t b = slots.accept(launch(0, 2), block_of(2, 5));
  slots.finish_warp(b, 0);
  EXPECT_EQ(slots.take_retired_blocks(), 0u);
  slots.finish_warp(b, 1);
  EXPECT_EQ(slots.residency(), (BlockSlots::Residency{0, 0, 0}));
  EXPECT_EQ(slots.take_retired_blocks(), 1u);
  EXPECT_EQ(slots.take_retired_blocks(), 0u);
  EXPECT_EQ(slots.trace(b), nullptr);
  std::vector<std::unique_ptr<BlockTrace>> spares;
  slots.take_spent_blocks(spares);
  ASSERT_EQ(spares.size(), 1u);
  EXPECT_EQ(spares[0]->id.x, 5u);
}

}  // namespace
}  // namespace lockstep
