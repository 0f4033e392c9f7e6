// The latched port (memsys/latched_queue.h): what a producer stages in cycle
// n is invisible to the consumer until cycle n + 1, and the producer's view of
// free room counts the consumer's pops only up to the end of the previous
// cycle — so neither side can observe the other mid-cycle, and running the
// two sides in either order, or on two threads at once, gives the same.
#include <gtest/gtest.h>

#include <barrier>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "memsys/latched_queue.h"

namespace lockstep {
namespace {

TEST(LatchedQueue, StagedItemsAppearInTheNextCycleInStagingOrder) {
  PortClock clock;
  LatchedQueue<int> q(4, &clock);
  q.stage(1);
  q.stage(2);
  q.receive();  // the consumer's cycle 0: nothing from cycle -1
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.idle());
  q.publish_pops();
  clock.cycle = 1;
  q.receive();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q.front(), 1);
  q.pop();
  EXPECT_EQ(q.front(), 2);
  q.pop();
  q.publish_pops();
  EXPECT_TRUE(q.idle());
}

// Two ports reporting their stages to one StagedPorts of 70: port 3 (word 0)
// and port 66 (bit 2 of word 1).
struct TwoReportingPorts {
  PortClock clock;
  StagedPorts staged{70};
  LatchedQueue<int> a{4, &clock}, b{4, &clock};
  TwoReportingPorts() {
    a.report_stages_to(&staged, 3);
    b.report_stages_to(&staged, 66);
  }
};

TEST(LatchedQueue, StagesMarkTheirPortForTheCycleParityTheyWereStagedIn) {
  TwoReportingPorts ports;
  auto& [clock, staged, a, b] = ports;
  clock.cycle = 5;  // odd
  a.stage(1);
  EXPECT_EQ(staged.take(0, 0), 0u);
  EXPECT_EQ(staged.take(1, 0), uint64_t(1) << 3);
  EXPECT_EQ(staged.take(1, 0), 0u);  // taken: cleared
  clock.cycle = 6;
  b.stage(2);
  EXPECT_EQ(staged.take(1, 1), 0u);
  EXPECT_EQ(staged.take(0, 1), uint64_t(1) << 2);
  // settle() leaves a port holding packets marked for either parity of the next cycle.
  a.receive();  // (cycle 6 takes cycle 5's stage)
  a.settle();
  b.settle();
  EXPECT_EQ(staged.take(0, 0), uint64_t(1) << 3);
  EXPECT_EQ(staged.take(1, 0), uint64_t(1) << 3);
  EXPECT_EQ(staged.take(0, 1), uint64_t(1) << 2);
  EXPECT_EQ(staged.take(1, 1), uint64_t(1) << 2);
  b.pop();
  b.settle();  // empty now: no mark
  EXPECT_EQ(staged.take(0, 1) | staged.take(1, 1), 0u);
}

TEST(LatchedQueue, ASingleProducerClearsTheMarksItsConsumersOnlyPeekAt) {
  // The reply crossbar's way: consumers read a parity's marks in the cycle
  // after they were made; the producer clears them when that parity comes
  // round again, before it marks.
  TwoReportingPorts ports;
  auto& [clock, staged, a, b] = ports;
  clock.cycle = 5;
  staged.clear(1);
  a.stage(1);
  b.stage(2);
  clock.cycle = 6;
  staged.clear(0);
  // Two consumers of word 0 and one of word 1, each peeking at its own bits.
  EXPECT_EQ(staged.peek(1, 0, uint64_t(0xF)), uint64_t(1) << 3);
  EXPECT_EQ(staged.peek(1, 0, ~uint64_t(0xF)), 0u);
  EXPECT_EQ(staged.peek(1, 1, ~uint64_t(0)), uint64_t(1) << 2);
  EXPECT_EQ(staged.peek(1, 0, uint64_t(0xF)), uint64_t(1) << 3);  // peeking clears nothing
  EXPECT_EQ(staged.peek(0, 0, ~uint64_t(0)) | staged.peek(0, 1, ~uint64_t(0)), 0u);
  clock.cycle = 7;
  staged.clear(1);  // cycle 5's marks, read in cycle 6, are gone
  EXPECT_EQ(staged.peek(1, 0, ~uint64_t(0)) | staged.peek(1, 1, ~uint64_t(0)), 0u);
  b.stage(3);
  EXPECT_EQ(staged.peek(1, 1, ~uint64_t(0)), uint64_t(1) << 2);
}

TEST(LatchedQueue, ProducerRoomCountsPopsOnlyFromTheNextCycleOn) {
  PortClock clock;
  LatchedQueue<int> q(2, &clock);
  q.stage(1);
  q.stage(2);
  EXPECT_FALSE(q.can_stage());
  EXPECT_THROW(q.stage(3), std::logic_error);
  q.publish_pops();
  clock.cycle = 1;
  q.receive();
  q.pop();  // the consumer frees a slot in cycle 1 ...
  EXPECT_FALSE(q.can_stage());  // ... which the producer does not see in cycle 1
  EXPECT_EQ(q.free_slots(), 0u);
  q.publish_pops();
  clock.cycle = 2;
  EXPECT_TRUE(q.can_stage());  // ... but does in cycle 2
  EXPECT_EQ(q.free_slots(), 1u);
}

TEST(LatchedQueue, SettleMakesStagedItemsVisibleAndPopsRoomForEitherParity) {
  PortClock clock;
  LatchedQueue<int> q(2, &clock);
  q.stage(7);
  q.receive();
  q.publish_pops();
  q.settle();  // between cycles, before a jump to an odd or even cycle
  ASSERT_EQ(q.size(), 1u);
  q.pop();
  q.settle();
  for (uint64_t next : {5u, 6u}) {
    clock.cycle = next;
    EXPECT_EQ(q.free_slots(), 2u) << "next cycle " << next;
  }
}

// A producer and a consumer that act at random on what they see; returns
// what the consumer received, with the cycle, and what the producer saw.
struct Observed {
  std::vector<uint64_t> received;  // item * 1000 + cycle
  std::vector<uint8_t> producer_room;
  bool operator==(const Observed&) const = default;
};
enum class Order { kProducerFirst, kConsumerFirst, kTwoThreads };
// When the consumer publishes its pops: every cycle; only in cycles it popped
// in and the one after (enough); only in cycles it popped in (too few).
enum class Publish { kEveryCycle, kPopsAndNext, kOnlyWithPops };

Observed run_pair(Order order, uint64_t cycles, Publish publish = Publish::kEveryCycle) {
  PortClock clock;
  LatchedQueue<uint64_t> q(3, &clock);
  Observed seen;
  std::mt19937_64 produce_rng(1), consume_rng(2);
  uint64_t next_item = 0;
  auto producer = [&](uint64_t) {
    const int tries = int(produce_rng() % 3);
    for (int i = 0; i < tries; ++i) {
      seen.producer_room.push_back(uint8_t(q.free_slots()));
      if (q.can_stage()) q.stage(next_item++);
    }
  };
  bool popped_before = false;
  auto consumer = [&](uint64_t now) {
    q.receive();
    const int pops = int(consume_rng() % 3);
    bool popped = false;
    for (int i = 0; i < pops && !q.empty(); ++i) {
      seen.received.push_back(q.front() * 1000 + now);
      q.pop();
      popped = true;
    }
    if (publish == Publish::kEveryCycle || popped || (publish == Publish::kPopsAndNext && popped_before))
      q.publish_pops();
    popped_before = popped;
  };
  if (order == Order::kTwoThreads) {
    // The engine's schedule: the clock moves between cycles, both sides run at once.
    std::barrier sync(2, [&]() noexcept { ++clock.cycle; });
    std::thread t([&] {
      for (uint64_t now = 0; now < cycles; ++now) {
        consumer(now);
        sync.arrive_and_wait();
      }
    });
    for (uint64_t now = 0; now < cycles; ++now) {
      producer(now);
      sync.arrive_and_wait();
    }
    t.join();
    return seen;
  }
  for (uint64_t now = 0; now < cycles; ++now, ++clock.cycle) {
    if (order == Order::kProducerFirst) {
      producer(now);
      consumer(now);
    } else {
      consumer(now);
      producer(now);
    }
  }
  return seen;
}

TEST(LatchedQueue, EitherOrderAndTwoThreadsSeeTheSame) {
  const Observed producer_first = run_pair(Order::kProducerFirst, 2000);
  EXPECT_GT(producer_first.received.size(), 500u);
  EXPECT_EQ(run_pair(Order::kConsumerFirst, 2000), producer_first);
  EXPECT_EQ(run_pair(Order::kTwoThreads, 2000), producer_first);
}

// The crossbar units publish only the ports they popped in this cycle or the
// previous one: that gives the producer the same room; publishing only in
// cycles with pops does not.
TEST(LatchedQueue, PublishingInCyclesWithPopsAndTheNextIsEnough) {
  const Observed every_cycle = run_pair(Order::kProducerFirst, 2000);
  EXPECT_EQ(run_pair(Order::kProducerFirst, 2000, Publish::kPopsAndNext), every_cycle);
  EXPECT_EQ(run_pair(Order::kTwoThreads, 2000, Publish::kPopsAndNext), every_cycle);
  // Too few: the producer sees stale counts, and the queue says so.
  EXPECT_THROW(run_pair(Order::kProducerFirst, 2000, Publish::kOnlyWithPops), std::logic_error);
}

}  // namespace
}  // namespace lockstep
