// The scaling model of `lockstep bench --cost-split` (parallel/scaling_model.h):
// longest-first makespans, the depth of the handshake tree, and the
// predicted cycle time built from them.
#include <gtest/gtest.h>

#include "parallel/scaling_model.h"

namespace lockstep {
namespace {

TEST(ScalingModel, LongestFirstMakespan) {
  // Longest first to the least loaded of A and B: 7 -> A (7), 5 -> B (5),
  // 4 -> B (9), 3 -> A (10), 3 -> B (12).
  EXPECT_DOUBLE_EQ(longest_first_makespan({3, 7, 4, 3, 5}, 2), 12.0);
  EXPECT_DOUBLE_EQ(longest_first_makespan({3, 7, 4, 3, 5}, 1), 22.0);
  EXPECT_DOUBLE_EQ(longest_first_makespan({3, 7, 4, 3, 5}, 8), 7.0);  // the largest piece bounds it
  EXPECT_DOUBLE_EQ(longest_first_makespan({}, 4), 0.0);
}

TEST(ScalingModel, HandshakeTreeDepth) {
  EXPECT_EQ(handshake_depth(1, 4), 0u);
  EXPECT_EQ(handshake_depth(2, 4), 1u);
  EXPECT_EQ(handshake_depth(5, 4), 1u);   // the leader and its 4 children
  EXPECT_EQ(handshake_depth(6, 4), 2u);
  EXPECT_EQ(handshake_depth(21, 4), 2u);  // 1 + 4 + 16
  EXPECT_EQ(handshake_depth(64, 4), 3u);
}

TEST(ScalingModel, PredictedCycleAddsSerialMakespanAndTreeLevels) {
  CycleCostSplit split;
  split.unit_ns = {10, 10, 10, 10};
  split.serial_ns = 3;
  split.round_trip_ns = 2;
  EXPECT_DOUBLE_EQ(predicted_cycle_ns(split, 1), 43.0);
  EXPECT_DOUBLE_EQ(predicted_cycle_ns(split, 2), 3.0 + 20.0 + 2.0);
  EXPECT_DOUBLE_EQ(predicted_cycle_ns(split, 8), 3.0 + 10.0 + 2.0 * 2);
}

}  // namespace
}  // namespace lockstep
