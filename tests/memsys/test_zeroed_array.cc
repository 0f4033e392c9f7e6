// ZeroedArray: plain-data arrays that start as zero bytes, and the caches
// built on them, whose untouched sets cost no memory.
#include "memsys/zeroed_array.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>

#include "memsys/sector_cache.h"

namespace lockstep {
namespace {

// This process's resident memory in KB (VmRSS of /proc/self/status).
uint64_t resident_kb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t kb = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> kb;
      return kb;
    }
    status.ignore(1 << 12, '\n');
  }
  return 0;
}

struct Pair {
  uint64_t a;
  uint32_t b;
};

TEST(ZeroedArray, StartsZeroAndCopiesDeep) {
  // Below and above the size that is mapped rather than allocated.
  for (const size_t n : {size_t(10), ZeroedArray<Pair>::kMappedBytes / sizeof(Pair) * 4}) {
    SCOPED_TRACE(n);
    ZeroedArray<Pair> a(n);
    ASSERT_EQ(a.size(), n);
    for (const Pair& p : a) ASSERT_TRUE(p.a == 0 && p.b == 0);
    a[n - 1] = Pair{7, 8};
    ZeroedArray<Pair> copy(a);
    copy[0].a = 5;
    EXPECT_EQ(copy[n - 1].a, 7u);
    EXPECT_EQ(a[0].a, 0u);
    ZeroedArray<Pair> moved(std::move(copy));
    EXPECT_EQ(copy.size(), 0u);
    EXPECT_EQ(moved[0].a, 5u);
    moved.clear_all();
    EXPECT_EQ(moved[n - 1].b, 0u);
    a = std::move(moved);
    EXPECT_EQ(a[n - 1].a, 0u);
  }
}

TEST(ZeroedArray, AnUntouchedCacheCostsNoMemory) {
  // A 32 MB cache of 128 B lines in 16 ways: about 17 MB of tag, state and
  // index arrays. Built, it holds only the pages its few lines touch.
  SectorCacheGeometry g;
  g.ways = 16;
  g.sets = (32u << 20) / 128 / g.ways;
  g.line_bytes = 128;
  g.sector_bytes = 32;
  const uint64_t before = resident_kb();
  SectorCache cache(g);
  for (uint64_t line = 0; line < 64; ++line) cache.fill(line * 128);
  const uint64_t after = resident_kb();
  EXPECT_EQ(cache.valid_lines(), 64u);
  EXPECT_EQ(cache.probe(5 * 128), SectorState::kHit);
  EXPECT_EQ(cache.probe(5 * 128 + 32), SectorState::kSectorMiss);
  // Every array written at construction would be ~17,000 KB.
  EXPECT_LT(after - before, 2048u) << "resident memory grew from " << before << " KB to " << after << " KB";
}

// A copy of a mapped array writes only the pages that hold data: an L2's
// arrays copied (the abstract model keeps one for a kernel it reads twice)
// cost what the original's touched pages cost, and the copy is exact, also
// where a page's data sits at its end or in the last, partial page.
TEST(ZeroedArray, ACopyTouchesOnlyThePagesThatHoldData) {
  const size_t n = (size_t(16) << 20) / sizeof(Pair) + 3;  // ~16 MB, the last page partial
  ZeroedArray<Pair> a(n);
  const size_t per_page = 4096 / sizeof(Pair);
  for (const size_t i : {size_t(0), per_page - 1, 100 * per_page + 7, n - 1}) a[i] = Pair{i + 1, uint32_t(i)};
  const uint64_t before = resident_kb();
  const ZeroedArray<Pair> copy(a);
  const uint64_t after = resident_kb();
  EXPECT_LT(after - before, 1024u) << "resident memory grew from " << before << " KB to " << after << " KB";
  for (size_t i = 0; i < n; ++i)
    if (copy[i].a != a[i].a || copy[i].b != a[i].b) FAIL() << "element " << i << " differs";
  EXPECT_EQ(copy[n - 1].a, n);
  EXPECT_EQ(copy[100 * per_page + 7].b, uint32_t(100 * per_page + 7));
}

}  // namespace
}  // namespace lockstep
