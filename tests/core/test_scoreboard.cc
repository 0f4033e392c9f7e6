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
  Scoreboard sb(4);
  const TimedInstruction producer = inst({5}, {1, 2});
  const TimedInstruction reader = inst({6}, {5});
  const TimedInstruction other = inst({7}, {1});
  EXPECT_FALSE(sb.blocks(2, reader));
  sb.reserve(2, producer);
  EXPECT_TRUE(sb.blocks(2, reader));
  EXPECT_FALSE(sb.blocks(2, other));   // independent registers
  EXPECT_FALSE(sb.blocks(3, reader));  // another warp's registers
  sb.release(2, producer);
  EXPECT_FALSE(sb.blocks(2, reader));
}

TEST(Scoreboard, AWriterOfAPendingRegisterWaits) {
  Scoreboard sb(1);
  sb.reserve(0, inst({9}, {}));
  EXPECT_TRUE(sb.blocks(0, inst({9}, {1})));  // write after write
  sb.clear(0);
  EXPECT_FALSE(sb.blocks(0, inst({9}, {1})));
}

}  // namespace
}  // namespace lockstep
