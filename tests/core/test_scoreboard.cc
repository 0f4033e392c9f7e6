// The scoreboard: pending registers block readers and writers until writeback.
#include <gtest/gtest.h>

#include "core/sm/scoreboard.h"

namespace lockstep {
namespace {

TimedInstruction inst(std::vector<uint16_t> dsts, std::vector<uint16_t> srcs) {
  TimedInstruction ti;
  ti.num_dsts = uint8_t(dsts.size());
  ti.num_srcs = uint8_t(srcs.size());
  std::copy(dsts.begin(), dsts.end(), ti.dsts.begin());
  std::copy(srcs.begin(), srcs.end(), ti.srcs.begin());
  return ti;
}

TEST(Scoreboard, AReaderOfAPendingRegisterWaitsUntilItsWriteback) {
  Scoreboard sb, other_warp;
  const TimedInstruction producer = inst({5}, {1, 2});
  const TimedInstruction reader = inst({6}, {5});
  const TimedInstruction other = inst({7}, {1});
  EXPECT_FALSE(sb.blocks(reader));
  sb.reserve(producer);
  EXPECT_TRUE(sb.blocks(reader));
  EXPECT_TRUE(sb.pending(5));
  EXPECT_FALSE(sb.blocks(other));          // independent registers
  EXPECT_FALSE(other_warp.blocks(reader));  // another warp's registers
  sb.release(producer);
  EXPECT_FALSE(sb.blocks(reader));
}

TEST(Scoreboard, AWriterOfAPendingRegisterWaits) {
  Scoreboard sb;
  sb.reserve(inst({9}, {}));
  EXPECT_TRUE(sb.blocks(inst({9}, {1})));  // write after write
  sb.clear();
  EXPECT_FALSE(sb.blocks(inst({9}, {1})));
}

}  // namespace
}  // namespace lockstep
