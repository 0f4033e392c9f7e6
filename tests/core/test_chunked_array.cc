// ChunkedArray (core/abstract/chunked_array.h): what a vector would hold,
// element for element, across chunk boundaries, and nothing after clear().
#include "core/abstract/chunked_array.h"

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

}  // namespace
}  // namespace lockstep
