// The instruction cache: miss latency, hits, LRU replacement, invalidation.
#include <gtest/gtest.h>

#include "core/sm/instruction_cache.h"

namespace lockstep {
namespace {

// 1 KB of 128 B lines, 2 ways: 4 sets; pcs 512 B apart share a set.
SmSpec small_icache() {
  SmSpec s;
  s.icache_kb = 1;
  s.icache_line_bytes = 128;
  s.icache_ways = 2;
  s.icache_miss_latency = 10;
  return s;
}

TEST(InstructionCache, AMissIsUsableAfterTheMissLatencyAndThenHits) {
  InstructionCache ic(small_icache());
  uint64_t ready = 0;
  EXPECT_FALSE(ic.lookup(0x40, 100, ready));
  EXPECT_EQ(ready, 110u);
  // The same line while it refills: a hit that waits for the refill.
  EXPECT_TRUE(ic.lookup(0x10, 105, ready));
  EXPECT_EQ(ready, 110u);
  EXPECT_TRUE(ic.lookup(0x70, 110, ready));
  EXPECT_EQ(ready, 110u);
  EXPECT_TRUE(ic.lookup(0x00, 200, ready));
  EXPECT_EQ(ready, 200u);
}

TEST(InstructionCache, AMissReplacesTheLeastRecentlyUsedLineOfItsSet) {
  InstructionCache ic(small_icache());
  uint64_t ready = 0;
  EXPECT_FALSE(ic.lookup(0, 0, ready));      // line A, set 0
  EXPECT_FALSE(ic.lookup(512, 20, ready));   // line B, set 0
  EXPECT_FALSE(ic.lookup(128, 25, ready));   // another set: no effect on set 0
  EXPECT_TRUE(ic.lookup(0, 30, ready));      // A used last: B is least recently used
  EXPECT_FALSE(ic.lookup(1024, 40, ready));  // line C evicts B
  EXPECT_TRUE(ic.lookup(0, 60, ready));
  EXPECT_TRUE(ic.lookup(1024, 61, ready));
  EXPECT_FALSE(ic.lookup(512, 62, ready));   // B was evicted
}

TEST(InstructionCache, InvalidateDropsEveryLine) {
  InstructionCache ic(small_icache());
  uint64_t ready = 0;
  EXPECT_FALSE(ic.lookup(0, 0, ready));
  EXPECT_TRUE(ic.lookup(0, 20, ready));
  ic.invalidate();
  EXPECT_FALSE(ic.lookup(0, 30, ready));
  EXPECT_EQ(ready, 40u);
}

}  // namespace
}  // namespace lockstep
