// ChunkedArray (core/abstract/chunked_array.h): what a vector would hold,
// element for element, across chunk boundaries, and nothing after clear().
#include "core/abstract/chunked_array.h"
#include "core/abstract/sm_workload.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace lockstep {
namespace {

struct PathRun {
  uint32_t first, length;
};

TEST(ChunkedArray, HoldsWhatAVectorHoldsAcrossChunks) {
  ChunkedArray<uint32_t, 2> chunked;  // chunks of 4: every fifth element starts one
  std::vector<uint32_t> plain;
  EXPECT_TRUE(chunked.empty());
  for (uint32_t i = 0; i < 23; ++i) {
    const uint32_t v = i * 2654435761u;
    chunked.push_back(v);
    plain.push_back(v);
    ASSERT_EQ(chunked.size(), plain.size());
    for (size_t k = 0; k < plain.size(); ++k) ASSERT_EQ(chunked[k], plain[k]) << "element " << k << " after " << i + 1;
  }
  EXPECT_FALSE(chunked.empty());
}

TEST(ChunkedArray, DefaultChunksAndStructElements) {
  ChunkedArray<PathRun> runs;
  const size_t n = 3 * ChunkedArray<PathRun>::kChunk + 5;
  for (size_t i = 0; i < n; ++i) runs.push_back(PathRun{uint32_t(i), uint32_t(n - i)});
  ASSERT_EQ(runs.size(), n);
  for (size_t i : {size_t(0), ChunkedArray<PathRun>::kChunk - 1, ChunkedArray<PathRun>::kChunk, n - 1}) {
    EXPECT_EQ(runs[i].first, i);
    EXPECT_EQ(runs[i].length, n - i);
  }
}

TEST(ChunkedArray, ClearEmptiesItForReuse) {
  ChunkedArray<uint32_t, 2> a;
  for (uint32_t i = 0; i < 9; ++i) a.push_back(i);
  a.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.size(), 0u);
  a.push_back(42);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0], 42u);
}

TEST(ChunkedArray, ReleasingAPrefixFreesWholeChunksAndKeepsIndices) {
  ChunkedArray<uint32_t, 2> a;  // chunks of 4
  for (uint32_t i = 0; i < 10; ++i) a.push_back(100 + i);
  a.release_before(6);  // chunk 0 (0-3) goes; 4 and 5 share chunk 1 with 6 and 7
  EXPECT_EQ(a.released(), 4u);
  EXPECT_EQ(a.size(), 10u);
  for (uint32_t i = 4; i < 10; ++i) EXPECT_EQ(a[i], 100 + i) << "element " << i;
  a.release_before(3);  // nothing more: released stays
  EXPECT_EQ(a.released(), 4u);
  for (uint32_t i = 10; i < 14; ++i) a.push_back(100 + i);
  a.release_before(13);
  EXPECT_EQ(a.released(), 12u);
  EXPECT_EQ(a[12], 112u);
  EXPECT_EQ(a[13], 113u);
  a.release_before(100);  // beyond the end: up to the last (partly used) chunk
  EXPECT_EQ(a.released(), 12u);
  a.push_back(114);
  EXPECT_EQ(a.back(), 114u);
  EXPECT_EQ(a[13], 113u);
  a.clear();
  EXPECT_EQ(a.released(), 0u);
  a.push_back(7);
  EXPECT_EQ(a[0], 7u);
}

// An SM's workload read a few blocks at a time: what the blocks before the
// first one still needed used is freed, by whole chunks, and the rest keeps
// its indices.
TEST(SmWorkload, ReleasingBlocksFreesTheirWarpsPathsAndCosts) {
  SmWorkload w;
  const uint32_t kBlocks = 600, kWarps = 4, kPath = 3, kMemory = 5;
  auto add_block = [&](uint32_t b) {
    EncodedBlock eb;
    eb.order = b;
    eb.warp_begin = uint32_t(w.warps.size());
    for (uint32_t k = 0; k < kWarps; ++k) {
      EncodedWarp ew;
      ew.path_begin = uint32_t(w.path.size());
      ew.memory_begin = uint32_t(w.memory.size());
      for (uint32_t p = 0; p < kPath; ++p) w.path.push_back(b * 100 + p);
      for (uint32_t m = 0; m < kMemory; ++m) w.memory.push_back(b * 1000 + m);
      ew.path_end = uint32_t(w.path.size());
      w.warps.push_back(ew);
    }
    eb.warp_end = uint32_t(w.warps.size());
    w.blocks.push_back(eb);
  };
  for (uint32_t b = 0; b < kBlocks; ++b) add_block(b);
  w.release_before_block(500);
  EXPECT_GT(w.blocks.released(), 0u);
  EXPECT_LE(w.blocks.released(), 500u);
  EXPECT_LE(w.warps.released(), 500u * kWarps);
  EXPECT_LE(w.path.released(), 500u * kWarps * kPath);
  EXPECT_LE(w.memory.released(), 500u * kWarps * kMemory);
  EXPECT_GT(w.memory.released(), 0u);
  for (uint32_t b = 500; b < kBlocks; ++b) {
    const EncodedBlock& eb = w.blocks[b];
    ASSERT_EQ(eb.order, b);
    const EncodedWarp& first = w.warps[eb.warp_begin];
    EXPECT_EQ(w.path[first.path_begin], b * 100);
    EXPECT_EQ(w.memory[first.memory_begin + kMemory - 1], b * 1000 + kMemory - 1);
  }
  w.release_before_block(kBlocks);  // all read so far: only the last, partly filled chunks stay
  add_block(kBlocks);
  const EncodedBlock& last = w.blocks[kBlocks];
  EXPECT_EQ(w.path[w.warps[last.warp_begin].path_begin], kBlocks * 100);
  w.release_before_block(0);  // before what is released: nothing changes
  EXPECT_EQ(w.blocks[kBlocks].order, kBlocks);
}

}  // namespace
}  // namespace lockstep
