// The latched port (memsys/latched_queue.h): what a producer stages in a
// cycle is invisible to the consumer until the commit, and the producer's view
// of free room does not change with the consumer's pops until the commit —
// so neither side can observe the other mid-cycle.
#include <gtest/gtest.h>

#include "memsys/latched_queue.h"

namespace lockstep {
namespace {

TEST(LatchedQueue, StagedItemsAppearOnlyAfterTheCommitInStagingOrder) {
  LatchedQueue<int> q(4);
  q.stage(1);
  q.stage(2);
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.idle());
  q.commit();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q.front(), 1);
  q.pop();
  EXPECT_EQ(q.front(), 2);
  q.pop();
  EXPECT_TRUE(q.idle());
}

TEST(LatchedQueue, ProducerRoomIsFrozenUntilTheCommit) {
  LatchedQueue<int> q(2);
  q.stage(1);
  q.stage(2);
  EXPECT_FALSE(q.can_stage());
  q.commit();
  EXPECT_FALSE(q.can_stage());
  q.pop();  // the consumer frees a slot this cycle ...
  EXPECT_FALSE(q.can_stage());  // ... which the producer sees only after the commit
  EXPECT_EQ(q.free_slots(), 0u);
  q.commit();
  EXPECT_TRUE(q.can_stage());
  EXPECT_EQ(q.free_slots(), 1u);
}

}  // namespace
}  // namespace lockstep
