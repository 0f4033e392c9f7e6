// The segments a resident block holds, and the storage an SM's blocks share:
// each segment is taken once, dropped segments' storage is decoded into again
// by whichever block of the SM takes a segment next, and no more than
// SegmentSpares::kKept storages wait unused.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "frontend/trace/block_segments.h"
#include "frontend/trace/held_segments.h"

namespace lockstep {
namespace {

// Segment s of block `ordinal`: one warp of s + 1 instructions with static id
// ordinal * 100 + s; counts what was taken.
class CountingSegments final : public BlockSegments {
 public:
  void take(uint32_t ordinal, uint32_t segment, BlockTrace& out) noexcept override {
    ++taken[{ordinal, segment}];
    out.warps.resize(1);
    out.warps[0].clear();
    for (uint32_t i = 0; i <= segment; ++i) out.warps[0].push(ordinal * 100 + segment, 0xffffffffu);
  }
  std::map<std::pair<uint32_t, uint32_t>, int> taken;
};

BlockTrace first_segment(uint32_t ordinal) {
  BlockTrace b;
  b.ordinal = ordinal;
  b.warps.resize(1);
  b.warps[0].push(ordinal * 100, 0xffffffffu);
  return b;
}

TEST(HeldSegments, TakesEachSegmentOnceAndKeepsItWhileRead) {
  CountingSegments source;
  SegmentSpares spares;
  BlockTrace first = first_segment(7);
  HeldSegments held;
  const BlockTrace& s1 = held.get(&source, first, 1, spares);
  EXPECT_EQ(&held.get(&source, first, 1, spares), &s1);  // the same storage, not taken again
  const BlockTrace& s2 = held.get(&source, first, 2, spares);
  EXPECT_EQ(source.taken.at({7, 1}), 1);
  EXPECT_EQ(source.taken.at({7, 2}), 1);
  ASSERT_EQ(s2.warps[0].insts.size(), 3u);
  EXPECT_EQ(s2.warps[0].insts[0].static_id, 702u);
  held.drop_before(first, 2, spares);  // no warp reads segment 1 (nor the first) any more
  EXPECT_TRUE(first.warps[0].insts.empty());
  EXPECT_EQ(spares.size(), 1u);
  EXPECT_EQ(held.get(&source, first, 2, spares).warps[0].insts[0].static_id, 702u);  // still held
  EXPECT_EQ(source.taken.at({7, 2}), 1);
}

TEST(HeldSegments, BlocksOfOneSmDecodeIntoEachOthersDroppedStorage) {
  CountingSegments source;
  SegmentSpares spares;
  BlockTrace a = first_segment(1), b = first_segment(2);
  HeldSegments held_a, held_b;
  const BlockTrace* a1 = &held_a.get(&source, a, 1, spares);
  held_a.get(&source, a, 2, spares);
  held_a.drop_before(a, 2, spares);  // a's segment 1 is now a spare
  ASSERT_EQ(spares.size(), 1u);
  const BlockTrace& b1 = held_b.get(&source, b, 1, spares);  // b decodes into it
  EXPECT_EQ(&b1, a1);
  EXPECT_EQ(spares.size(), 0u);
  EXPECT_EQ(b1.segment, 1u);
  EXPECT_EQ(b1.warps[0].insts[0].static_id, 201u);
}

TEST(HeldSegments, AnSmKeepsAtMostKKeptSpares) {
  CountingSegments source;
  SegmentSpares spares;
  std::vector<BlockTrace> firsts;
  for (uint32_t i = 0; i < 6; ++i) firsts.push_back(first_segment(i));
  std::vector<HeldSegments> held(firsts.size());
  for (size_t i = 0; i < firsts.size(); ++i)
    for (uint32_t s = 1; s <= 3; ++s) held[i].get(&source, firsts[i], s, spares);
  for (size_t i = 0; i < firsts.size(); ++i) held[i].clear(spares);  // every block retires
  EXPECT_EQ(spares.size(), SegmentSpares::kKept);
  EXPECT_EQ(source.taken.size(), firsts.size() * 3);
}

}  // namespace
}  // namespace lockstep
