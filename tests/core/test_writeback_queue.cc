// The SM's writeback queue (core/sm/writeback_queue.h): a timing wheel with a
// heap for far results must give exactly the order of one priority queue by
// (cycle, scheduling order), whatever the latencies and jumps in time.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <vector>

#include "core/sm/writeback_queue.h"

namespace lockstep {
namespace {

struct Reference {
  std::priority_queue<Writeback, std::vector<Writeback>, std::greater<Writeback>> queue;
  uint64_t seq = 0;
  void push(uint64_t cycle, uint32_t warp) { queue.push(Writeback{cycle, seq++, warp, nullptr, false, kNoCopyGroup}); }
};

TEST(WritebackQueue, GivesThePriorityQueueOrderForNearFarEarlyAndSameCycleResults) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    WritebackQueue wheel;
    Reference ref;
    uint64_t now = rng() % 1000;
    uint32_t warp = 0;
    for (int step = 0; step < 20000; ++step) {
      // Schedule a few results: mostly near, some beyond the wheel, a few for a past cycle.
      for (int k = int(rng() % 4); k > 0; --k) {
        const uint64_t kind = rng() % 100;
        uint64_t cycle = now + rng() % 40;
        if (kind < 10) cycle = now + 200 + rng() % 2000;      // far
        else if (kind < 12 && now > 5) cycle = now - 1 - rng() % 5;  // earlier than now
        else if (kind < 30) cycle = now;                        // this cycle
        wheel.push(cycle, warp, nullptr, false, kNoCopyGroup);
        ref.push(cycle, warp);
        ++warp;
      }
      ASSERT_EQ(wheel.empty(), ref.queue.empty());
      ASSERT_EQ(wheel.next_cycle(), ref.queue.empty() ? UINT64_MAX : ref.queue.top().cycle);
      while (!ref.queue.empty() && ref.queue.top().cycle <= now) {
        ASSERT_TRUE(wheel.due(now));
        const Writeback got = wheel.pop(), want = ref.queue.top();
        ref.queue.pop();
        ASSERT_EQ(got.cycle, want.cycle);
        ASSERT_EQ(got.warp, want.warp);
        ASSERT_EQ(got.seq, want.seq);
      }
      ASSERT_FALSE(wheel.due(now));
      now += rng() % 8 == 0 ? rng() % 3000 : rng() % 3;  // mostly the next cycles, sometimes a jump
    }
  }
}

}  // namespace
}  // namespace lockstep
