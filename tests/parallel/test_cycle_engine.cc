// The cycle engine alone, on pieces that count: every piece runs exactly once
// per cycle, in cycle order, on every schedule, partition and thread count;
// fast-forward gets the earliest quiet cycle of the pieces.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "parallel/cycle_engine.h"

namespace lockstep {
namespace {

// Counts its runs and checks that they come one per cycle, in order.
class CountingPiece final : public EnginePiece {
 public:
  explicit CountingPiece(uint64_t quiet_after = 1) : quiet_after_(quiet_after) {}
  void run(uint64_t now) override {
    const uint64_t runs = runs_.fetch_add(1, std::memory_order_relaxed);
    if (now != first_cycle_ + runs) out_of_order_.store(true, std::memory_order_relaxed);
  }
  uint64_t quiet_until(uint64_t now) const override { return now + quiet_after_; }
  void start_at(uint64_t cycle) { first_cycle_ = cycle; }
  uint64_t runs() const { return runs_.load(); }
  bool out_of_order() const { return out_of_order_.load(); }

 private:
  const uint64_t quiet_after_;
  uint64_t first_cycle_ = 0;
  std::atomic<uint64_t> runs_{0};
  std::atomic<bool> out_of_order_{false};
};

struct Pieces {
  std::vector<std::unique_ptr<CountingPiece>> clusters, units;
  Pieces(uint32_t nclusters, uint32_t nunits) {
    for (uint32_t c = 0; c < nclusters; ++c) clusters.push_back(std::make_unique<CountingPiece>(5 + c));
    for (uint32_t u = 0; u < nunits; ++u) units.push_back(std::make_unique<CountingPiece>(9 + u));
  }
  static std::vector<EnginePiece*> of(const std::vector<std::unique_ptr<CountingPiece>>& v) {
    std::vector<EnginePiece*> out;
    for (const auto& p : v) out.push_back(p.get());
    return out;
  }
};

TEST(CycleEngineRules, EveryPieceRunsOncePerCycleOnEveryScheduleAndThreadCount) {
  constexpr uint64_t kCycles = 300, kFirst = 1000;
  for (Schedule schedule : {Schedule::kSeq, Schedule::kPara1, Schedule::kPara2})
    for (uint32_t threads : {1u, 2u, 3u, 5u})
      for (Partition partition : {Partition::kContiguous, Partition::kRoundRobin, Partition::kBalanced})
        for (bool shuffle : {false, true}) {
          SCOPED_TRACE(std::string(schedule_name(schedule)) + " " + std::to_string(threads) + " " +
                       partition_name(partition) + (shuffle ? " shuffled" : ""));
          Pieces pieces(7, 4);
          for (auto& p : pieces.clusters) p->start_at(kFirst);
          for (auto& p : pieces.units) p->start_at(kFirst);
          EngineOptions o;
          o.schedule = schedule;
          o.threads = threads;
          o.partition = partition;
          o.rebalance_period = 16;  // balanced: many reassignments
          o.serial_fallback = SerialFallback::off();
          if (shuffle) o.shuffle_seed = 7;
          EngineReport report;
          {
            CycleEngine engine(Pieces::of(pieces.clusters), Pieces::of(pieces.units), o, report);
            for (uint64_t now = kFirst; now < kFirst + kCycles; ++now) engine.run_cycle(now);
            engine.finish();
          }
          for (const auto* group : {&pieces.clusters, &pieces.units})
            for (const auto& p : *group) {
              EXPECT_EQ(p->runs(), kCycles);
              EXPECT_FALSE(p->out_of_order());
            }
          const uint32_t used = o.threads_used();
          EXPECT_EQ(report.threads, used);
          EXPECT_EQ(report.parallel_cycles, used > 1 ? kCycles : 0u);
          EXPECT_EQ(report.serial_cycles, used > 1 ? 0u : kCycles);
          if (partition == Partition::kBalanced && used > 1) {
            EXPECT_EQ(report.rebalances, kCycles / 16);
          }
          if (schedule == Schedule::kPara2 && used > 1 && partition != Partition::kBalanced) {
            EXPECT_EQ(report.memory_threads, std::max(1u, used / 4));
          }
        }
}

// Fast-forward: the earliest cycle a piece may change, over every piece and thread.
TEST(CycleEngineRules, QuietUntilIsTheEarliestOfThePieces) {
  for (uint32_t threads : {1u, 3u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    Pieces pieces(6, 3);  // clusters quiet for 5.., units for 9..
    EngineOptions o;
    o.schedule = threads > 1 ? Schedule::kPara2 : Schedule::kSeq;
    o.threads = threads;
    o.serial_fallback = SerialFallback::off();
    EngineReport report;
    CycleEngine engine(Pieces::of(pieces.clusters), Pieces::of(pieces.units), o, report);
    engine.run_cycle(0);
    EXPECT_EQ(engine.quiet_until(0), 5u);
    engine.skip(4);
    EXPECT_EQ(report.skipped_cycles, 4u);
  }
  // Without fast-forward nothing is asked: every cycle is the next.
  Pieces pieces(2, 1);
  EngineOptions o;
  o.fast_forward = false;
  EngineReport report;
  CycleEngine engine(Pieces::of(pieces.clusters), Pieces::of(pieces.units), o, report);
  engine.run_cycle(0);
  EXPECT_EQ(engine.quiet_until(0), 1u);
}

}  // namespace
}  // namespace lockstep
