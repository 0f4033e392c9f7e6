// Execution units: pipelines accept again after their initiation interval.
#include <gtest/gtest.h>

#include "core/sm/execution_units.h"

namespace lockstep {
namespace {

SmSpec units() {
  SmSpec s;
  s.subcores = 2;
  s.units = {{"SP", 1, 4, 2}, {"INT", 2, 4, 1}};
  return s;
}

TEST(ExecutionUnits, AUnitWithInitiationTwoAcceptsEveryOtherCycle) {
  const SmSpec spec = units();
  ExecutionUnits u(spec);
  int accepted = 0;
  for (uint64_t t = 0; t < 8; ++t) {
    const size_t p = u.free_pipeline(0, 0, t);
    EXPECT_EQ(p != ExecutionUnits::kNone, t % 2 == 0) << "cycle " << t;
    if (p != ExecutionUnits::kNone) {
      u.occupy(0, p, 0, t);
      ++accepted;
    }
  }
  EXPECT_EQ(accepted, 4);
  EXPECT_NE(u.free_pipeline(1, 0, 1), ExecutionUnits::kNone);  // the other sub-core's pipeline
}

TEST(ExecutionUnits, NextFreeAfterIsTheEarliestBusyPipelineOfAnySubcore) {
  const SmSpec spec = units();
  ExecutionUnits u(spec);
  EXPECT_EQ(u.next_free_after(0), UINT64_MAX);  // nothing busy
  u.occupy(1, u.free_pipeline(1, 0, 10), 0, 10);  // SP, initiation 2: free again at 12
  u.occupy(0, u.free_pipeline(0, 1, 10), 1, 10);  // INT, initiation 1: free again at 11
  EXPECT_EQ(u.next_free_after(10), 11u);
  EXPECT_EQ(u.next_free_after(11), 12u);  // the INT pipeline is free at 11: not after it
  EXPECT_EQ(u.next_free_after(12), UINT64_MAX);
}

TEST(ExecutionUnits, TwoPipelinesOfAClassAcceptTwoInstructionsACycle) {
  const SmSpec spec = units();
  ExecutionUnits u(spec);
  const size_t a = u.free_pipeline(0, 1, 0);
  ASSERT_NE(a, ExecutionUnits::kNone);
  u.occupy(0, a, 1, 0);
  const size_t b = u.free_pipeline(0, 1, 0);
  ASSERT_NE(b, ExecutionUnits::kNone);
  EXPECT_NE(a, b);
  u.occupy(0, b, 1, 0);
  EXPECT_EQ(u.free_pipeline(0, 1, 0), ExecutionUnits::kNone);
  EXPECT_NE(u.free_pipeline(0, 0, 0), ExecutionUnits::kNone);  // the SP class is separate
}

}  // namespace
}  // namespace lockstep
