// The operand collector: register-bank conflicts cost collector cycles.
#include <gtest/gtest.h>

#include "core/sm/operand_collector.h"

namespace lockstep {
namespace {

SmSpec one_collector() {
  SmSpec s;
  s.subcores = 1;
  s.reg_banks = 2;  // bank = register % 2
  s.collector_units = 1;
  return s;
}
// An instruction reading `srcs`, resolved for two banks as KernelProgram resolves it.
TimedInstruction reads(std::vector<uint16_t> srcs) {
  TimedInstruction ti;
  ti.num_srcs = uint8_t(srcs.size());
  std::copy(srcs.begin(), srcs.end(), ti.srcs.begin());
  ti.bank_conflict_cycles = uint8_t(register_bank_conflict_cycles(ti, one_collector().reg_banks));
  return ti;
}

TEST(OperandCollector, ABankConflictCostsAnExtraCollectorCycle) {
  OperandCollector oc(one_collector());
  ASSERT_TRUE(oc.available(0, 10));
  EXPECT_EQ(oc.collect(0, 10, reads({0, 1})), 0u);  // banks 0 and 1
  EXPECT_FALSE(oc.available(0, 10));
  EXPECT_TRUE(oc.available(0, 11));
  EXPECT_EQ(oc.collect(0, 11, reads({0, 2})), 1u);  // both in bank 0
  EXPECT_FALSE(oc.available(0, 12));
  EXPECT_TRUE(oc.available(0, 13));
}

TEST(OperandCollector, RepeatedAndNonVectorOperandsCostNothing) {
  const OperandCollector oc(one_collector());
  EXPECT_EQ(oc.bank_conflict_cycles(reads({4, 4})), 0u);      // one read of R4
  EXPECT_EQ(oc.bank_conflict_cycles(reads({0, 256})), 0u);    // UR0 is not in the banks
  EXPECT_EQ(oc.bank_conflict_cycles(reads({0, 2, 4})), 2u);   // three reads of bank 0
}

}  // namespace
}  // namespace lockstep
