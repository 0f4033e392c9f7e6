// The per-cycle handshake semaphores (parallel/semaphore.h): counting
// semantics, no lost or extra wake-ups under the leader/worker protocol of
// parallel-gpgpu-sim Alg. 2, oversubscribed runs that do not crawl, and the
// adaptive spin of SpinFutexSemaphore. Plain (non-atomic) shared data is
// handed over by the semaphores alone, so ThreadSanitizer checks that release
// -> acquire orders memory.
#include "parallel/semaphore.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <type_traits>
#include <vector>

namespace lockstep {
namespace {

template <typename Semaphore>
class SemaphoreKinds : public ::testing::Test {};
using Kinds = ::testing::Types<SpinFutexSemaphore, StdSemaphore>;
static_assert(std::is_same_v<HandshakeSemaphore<HandshakeKind::kSpinFutex>, SpinFutexSemaphore>);
static_assert(std::is_same_v<HandshakeSemaphore<HandshakeKind::kStd>, StdSemaphore>);
TYPED_TEST_SUITE(SemaphoreKinds, Kinds);

// Spin-waits (with sleeps) until pred() holds; the tests use it to order a
// release after an acquirer has reached a known point.
template <typename Pred>
void wait_until(Pred pred) {
  while (!pred()) std::this_thread::sleep_for(std::chrono::microseconds(50));
}

TYPED_TEST(SemaphoreKinds, TryAcquireTakesExactlyTheReleasedUnits) {
  TypeParam sem(0);
  EXPECT_FALSE(sem.try_acquire());
  sem.release(2);
  EXPECT_TRUE(sem.try_acquire());
  EXPECT_TRUE(sem.try_acquire());
  EXPECT_FALSE(sem.try_acquire());
  sem.release();
  EXPECT_TRUE(sem.try_acquire());
  EXPECT_FALSE(sem.try_acquire());

  TypeParam preset(3);
  EXPECT_TRUE(preset.try_acquire());
  EXPECT_TRUE(preset.try_acquire());
  EXPECT_TRUE(preset.try_acquire());
  EXPECT_FALSE(preset.try_acquire());
}

TYPED_TEST(SemaphoreKinds, AcquireOnZeroWaitsForTheReleaseAndTimesIt) {
  TypeParam sem(0);
  std::thread poster([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sem.release();
  });
  sem.acquire();
  poster.join();
  EXPECT_EQ(sem.slow_acquires(), 1u);
  EXPECT_EQ(sem.blocks(), 1u);  // a 50 ms wait outlasts any spin
  EXPECT_GE(sem.wait_ns(), 1'000'000u);
  EXPECT_FALSE(sem.try_acquire());
}

TYPED_TEST(SemaphoreKinds, ReleaseOfNWakesNSleepers) {
  TypeParam sem(0);
  constexpr int kSleepers = 4;
  std::vector<std::thread> sleepers;
  for (int i = 0; i < kSleepers; ++i) sleepers.emplace_back([&] { sem.acquire(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  sem.release(kSleepers);
  for (auto& t : sleepers) t.join();
  EXPECT_FALSE(sem.try_acquire());
}

// Two threads hand one token back and forth 100k times; each side checks the
// plain counter the other side last wrote.
TYPED_TEST(SemaphoreKinds, PingPongLosesNoWakeUp) {
  constexpr uint64_t kRounds = 100'000;
  TypeParam ping(0), pong(0);
  uint64_t counter = 0;  // written alternately, ordered only by the semaphores
  uint64_t pinger_mismatches = 0, ponger_mismatches = 0;
  std::thread ponger([&] {
    for (uint64_t i = 0; i < kRounds; ++i) {
      ping.acquire();
      if (counter != 2 * i + 1) ++ponger_mismatches;
      ++counter;
      pong.release();
    }
  });
  for (uint64_t i = 0; i < kRounds; ++i) {
    if (counter != 2 * i) ++pinger_mismatches;
    ++counter;
    ping.release();
    pong.acquire();
  }
  ponger.join();
  EXPECT_EQ(counter, 2 * kRounds);
  EXPECT_EQ(pinger_mismatches, 0u);
  EXPECT_EQ(ponger_mismatches, 0u);
  EXPECT_FALSE(ping.try_acquire());  // no extra wake-up left over
  EXPECT_FALSE(pong.try_acquire());
}

// Leader + workers run `cycles` cycles of Alg. 2. The leader writes the cycle
// number before it posts; each worker checks it and adds (w + 1) to its own
// slot; after waiting W times the leader checks every slot.
template <typename Semaphore>
void run_cycles(unsigned workers, uint64_t cycles, bool oversubscribed) {
  CycleHandshake<Semaphore> handshake(workers, oversubscribed);
  struct alignas(64) Slot {
    uint64_t sum = 0;
    uint64_t stale_cycles = 0;
  };
  std::vector<Slot> slots(workers);
  uint64_t cycle = 0;  // written by the leader, read by the workers
  bool stop = false;
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (uint64_t expect = 0;; ++expect) {
        handshake.wait_go(w);
        if (stop) return;
        if (cycle != expect) ++slots[w].stale_cycles;
        slots[w].sum += w + 1;
        handshake.post_done();
      }
    });
  uint64_t bad_sums = 0;
  for (; cycle < cycles; ++cycle) {
    handshake.post_all();
    handshake.wait_all();
    for (unsigned w = 0; w < workers; ++w)
      if (slots[w].sum != (cycle + 1) * (w + 1)) ++bad_sums;
  }
  stop = true;
  handshake.post_all();
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad_sums, 0u);
  for (unsigned w = 0; w < workers; ++w) {
    EXPECT_EQ(slots[w].sum, cycles * (w + 1)) << "worker " << w;
    EXPECT_EQ(slots[w].stale_cycles, 0u) << "worker " << w;
  }
}

TYPED_TEST(SemaphoreKinds, LeaderAndThreeWorkersAgreeEveryCycle) {
  run_cycles<TypeParam>(3, 20'000, handshake_oversubscribed(4));
}

// 1 leader + 7 workers on the 2-core machine: yielding and sleeping instead
// of spinning keeps 5k cycles well under the bound (a spinning handshake that
// gave up its core only at the scheduler tick would take minutes).
TYPED_TEST(SemaphoreKinds, OversubscribedEightThreadsFinishFiveThousandCycles) {
  const auto start = std::chrono::steady_clock::now();
  run_cycles<TypeParam>(7, 5'000, handshake_oversubscribed(8));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(30));
}

// The same with the hint wrongly saying the cores are dedicated: the
// adaptive spin shrinks after the failed spins, so the run still finishes.
TEST(SemaphoreSpinFutex, WrongDedicatedHintStillFinishesOversubscribed) {
  const auto start = std::chrono::steady_clock::now();
  run_cycles<SpinFutexSemaphore>(7, 5'000, false);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(30));
}

// An acquire that finds the count positive takes the fast path: no clock
// read, nothing counted.
TEST(SemaphoreSpinFutex, AcquireOnAPositiveCountIsNotCountedAsAWait) {
  SpinFutexSemaphore sem(0);
  sem.release(2);
  sem.acquire();
  sem.acquire();
  EXPECT_EQ(sem.slow_acquires(), 0u);
  EXPECT_EQ(sem.blocks(), 0u);
  EXPECT_EQ(sem.spins(), 0u);
  EXPECT_EQ(sem.wait_ns(), 0u);
  EXPECT_EQ(sem.spin_limit(), SpinFutexSemaphore::kDedicatedSpin.initial);
}

TEST(SemaphoreSpinFutex, OversubscribedHintDoesNotSpin) {
  SpinFutexSemaphore sem(0, true);
  EXPECT_EQ(sem.spin_limit(), 0u);
  std::thread poster([&] {
    wait_until([&] { return sem.blocks() == 1; });
    sem.release();
  });
  sem.acquire();
  poster.join();
  EXPECT_EQ(sem.spins(), 0u);
  EXPECT_EQ(sem.blocks(), 1u);
  EXPECT_EQ(sem.spin_limit(), 0u);
}

// Each acquire that spun its whole limit and then slept halves the limit,
// down to the minimum. The poster releases only once the acquirer has given
// up spinning (blocks() counts before the sleep).
TEST(SemaphoreSpinFutex, FailedSpinHalvesTheLimitDownToTheMinimum) {
  SpinFutexSemaphore sem(0, SpinBounds{8, 512, 64});
  const uint32_t limits_after[] = {32, 16, 8, 8};
  uint64_t spun = 0;
  uint32_t limit = 64;
  for (uint64_t round = 1; round <= 4; ++round) {
    std::thread poster([&] {
      wait_until([&] { return sem.blocks() == round; });
      sem.release();
    });
    sem.acquire();
    poster.join();
    spun += limit;
    limit = limits_after[round - 1];
    EXPECT_EQ(sem.spin_limit(), limit) << "after round " << round;
    EXPECT_EQ(sem.spins(), spun) << "after round " << round;
  }
  EXPECT_EQ(sem.blocks(), 4u);
  EXPECT_EQ(sem.slow_acquires(), 4u);
}

// A wait that ends inside the spin doubles the limit (up to the maximum) and
// never sleeps. The spin is long (2^22 pauses, well over 100 ms) so the
// poster, which releases as soon as the acquirer entered its slow path, lands
// inside it.
TEST(SemaphoreSpinFutex, SuccessfulSpinDoublesTheLimitUpToTheMaximum) {
  SpinFutexSemaphore sem(0, SpinBounds{8, 1u << 23, 1u << 22});
  std::thread poster([&] {
    wait_until([&] { return sem.slow_acquires() == 1; });
    sem.release();
  });
  sem.acquire();
  poster.join();
  EXPECT_EQ(sem.blocks(), 0u);
  EXPECT_EQ(sem.slow_acquires(), 1u);
  EXPECT_GT(sem.spins(), 0u);
  EXPECT_LT(sem.spins(), uint64_t(1) << 22);
  EXPECT_EQ(sem.spin_limit(), 1u << 23);
}

}  // namespace
}  // namespace lockstep
