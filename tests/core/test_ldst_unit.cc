// The LD/ST unit over the fixed-latency memory port (perfect memory).
#include <gtest/gtest.h>

#include <variant>

#include "core/fixed_latency_port.h"
#include "core/sm/ldst_unit.h"

namespace lockstep {
namespace {

constexpr uint32_t kLatency = 37;

struct Bench {
  SmSpec spec;
  SmStats stats;
  WritebackQueue writebacks;
  WarpTrace trace;
  WarpState warp;
  LdstUnit ldst;
  Bench() : spec(make_spec()), ldst(spec, stats, writebacks) {
    set_lanes(4);
    warp.active = true;
    warp.trace = &trace;
  }
  // One full-mask memory instruction whose lane l accesses 0x1000 + stride * l.
  void set_lanes(uint64_t stride) {
    LaneBuffer lanes;
    for (uint64_t lane = 0; lane < 32; ++lane) lanes[lane] = 0x1000 + stride * lane;
    trace.clear();
    trace.push(0, 0xffffffffu, lanes);
  }
  static SmSpec make_spec() {
    SmSpec s;
    s.perfect_memory_latency = kLatency;
    return s;
  }
};
TimedInstruction global_load(uint16_t dst) {
  TimedInstruction ti;
  ti.kind = InstKind::kMemory;
  ti.space = MemSpace::kGlobal;
  ti.op = MemOp::kLoad;
  ti.access_bytes = 4;
  ti.has_addresses = true;
  ti.num_dsts = 1;
  ti.dsts[0] = dst;
  return ti;
}

TEST(FixedLatencyPort, AnAccessCompletesAtIssuePlusLatency) {
  FixedLatencyPort port(kLatency);
  const SectorAccess s{};
  EXPECT_TRUE(port.can_accept());
  EXPECT_FALSE(port.has_work());
  EXPECT_EQ(port.access(SmMemoryAccess{0, SmAccessOp::kLoad, MemSpace::kGlobal, {&s, 1}, 100}), 100u + kLatency);
}

TEST(LdstUnit, WithoutAttachedMemoryAGlobalLoadCompletesAtIssuePlusLatency) {
  Bench b;
  ASSERT_TRUE(std::holds_alternative<FixedLatencyPort>(b.ldst.port()));
  const TimedInstruction ti = global_load(3);
  const WarpInstruction wi = b.trace.insts[0];
  ASSERT_TRUE(b.ldst.can_issue(50));
  b.ldst.issue(b.warp, 0, ti, wi, 50);
  EXPECT_EQ(b.writebacks.next_cycle(), 50u + kLatency);
  EXPECT_TRUE(b.warp.scoreboard.pending(3));
  EXPECT_EQ(b.warp.outstanding_memory, 1u);
  EXPECT_EQ(b.stats.global_ld_sectors, 4u);  // 32 lanes x 4 B = 4 sectors
  // The unit is busy for the issue cycle only.
  EXPECT_EQ(b.ldst.free_at(), 51u);
  EXPECT_FALSE(b.ldst.can_issue(50));
  EXPECT_TRUE(b.ldst.can_issue(51));
}

TEST(LdstUnit, SharedMemoryBankConflictsKeepTheUnitBusy) {
  Bench b;
  TimedInstruction ti = global_load(3);
  ti.space = MemSpace::kShared;
  b.set_lanes(128);  // all lanes in bank 0
  b.ldst.issue(b.warp, 0, ti, b.trace.insts[0], 10);
  EXPECT_EQ(b.ldst.free_at(), 10u + 32);
  EXPECT_EQ(b.writebacks.next_cycle(), 10u + b.spec.shared_latency + 31);
  EXPECT_EQ(b.stats.shared_bank_conflicts, 31u);
}

}  // namespace
}  // namespace lockstep
