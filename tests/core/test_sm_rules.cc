// One named test per SM timing rule, each with exact cycle counts on scripted
// warps. The pipeline constants are documented in core/sm.h and docs/DESIGN.md.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>

#include "frontend/trace/kernel_info.h"
#include "tests/core/sm_script.h"

namespace lockstep {
namespace {

using test::Script;
using test::test_spec;
using test::kSpLatency;
using test::kSpInitiation;
using test::kSfuLatency;
using test::kIcacheMiss;

uint64_t dependent_chain(uint32_t n) {
  Script s(test_spec());
  const uint32_t ffma = s.inst("FFMA", {1}, {1, 2});  // R1 <- R1*R2 (banks 1, 0): each depends on the last
  BlockTrace b;
  for (uint32_t i = 0; i < n; ++i) s.add(b, 0, ffma);
  return s.run(b);
}

TEST(SmRules, DependentChainTakesLatencyPerInstruction) {
  // cycles(N) = N * latency + C with C = I-cache miss + 1 (decode) + 1 (the
  // cycle the last result is written back in), the constant in core/sm.h.
  const uint64_t c1 = dependent_chain(1);
  EXPECT_EQ(c1, kIcacheMiss + 1 + kSpLatency + 1);
  for (uint32_t n : {2u, 5u, 16u}) EXPECT_EQ(dependent_chain(n), c1 + (n - 1) * kSpLatency) << n;
}

// The threaded dispatcher offers a block (Sm::offer) and the SM accepts it at
// the start of its own tick: every issue, cycle and counter must be what
// accept() before the tick gives, for a block at cycle 0 and one dispatched
// while the first runs or after it has finished.
TEST(SmRules, AnOfferedBlockRunsExactlyAsAnAcceptedOne) {
  for (uint32_t first_warps : {1u, 6u})
  for (uint64_t second_at : {1u, 7u, 41u, 63u}) {
    std::vector<Script::Issue> issues[2];
    uint64_t cycles[2];
    SmStats stats[2];
    for (Script::Handover how : {Script::Handover::kAccept, Script::Handover::kOffer}) {
      Script s(test_spec());
      const uint32_t ffma = s.inst("FFMA", {1}, {1, 2}), iadd = s.inst("IADD3", {11}, {2, 3});
      BlockTrace first, second;
      for (uint32_t w = 0; w < first_warps; ++w)
        for (uint32_t i = 0; i < 5 + w; ++i) s.add(first, w, i % 2 ? ffma : iadd);
      for (uint32_t w = 0; w < 3; ++w)
        for (uint32_t i = 0; i < 4; ++i) s.add(second, w, ffma);
      const size_t k = how == Script::Handover::kOffer;
      cycles[k] = s.run_two(first, second, second_at, how, &issues[k]);
      stats[k] = s.stats();
    }
    ASSERT_EQ(issues[0].size(), issues[1].size()) << second_at;
    for (size_t i = 0; i < issues[0].size(); ++i) {
      EXPECT_EQ(issues[0][i].cycle, issues[1][i].cycle) << second_at << " issue " << i;
      EXPECT_EQ(issues[0][i].warp, issues[1][i].warp) << second_at << " issue " << i;
      EXPECT_EQ(issues[0][i].index, issues[1][i].index) << second_at << " issue " << i;
    }
    EXPECT_EQ(cycles[0], cycles[1]) << second_at;
    EXPECT_EQ(stats[0].blocks_launched, 2u);
    EXPECT_EQ(stats[0].blocks_launched, stats[1].blocks_launched);
    EXPECT_EQ(stats[0].warp_insts, stats[1].warp_insts);
    EXPECT_EQ(stats[0].cycles_active, stats[1].cycles_active);
  }
}

TEST(SmRules, IndependentInstructionsIssueAtTheInitiationInterval) {
  auto run = [](uint32_t n) {
    Script s(test_spec());
    BlockTrace b;
    for (uint32_t i = 0; i < n; ++i) s.add(b, 0, s.inst("FFMA", {uint16_t(10 + i)}, {2, 3}));
    std::vector<Script::Issue> issues;
    s.run(b, &issues);
    return issues;
  };
  const auto issues = run(6);
  ASSERT_EQ(issues.size(), 6u);
  for (size_t i = 1; i < issues.size(); ++i) EXPECT_EQ(issues[i].cycle - issues[i - 1].cycle, kSpInitiation) << i;
}

TEST(SmRules, DifferentUnitsIssueBackToBack) {
  Script s(test_spec());
  BlockTrace b;
  s.add(b, 0, s.inst("FFMA", {10}, {2, 3}));
  s.add(b, 0, s.inst("IADD3", {11}, {2, 3}));
  std::vector<Script::Issue> issues;
  s.run(b, &issues);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[1].cycle, issues[0].cycle + 1);
}

TEST(SmRules, FourSubcoresIssueInTheSameCycle) {
  Script s(test_spec());
  BlockTrace b;
  const uint32_t ffma = s.inst("FFMA", {10}, {2, 3});
  for (uint32_t w = 0; w < 4; ++w) s.add(b, w, ffma);  // warps 0..3 land on sub-cores 0..3
  std::vector<Script::Issue> issues;
  s.run(b, &issues);
  ASSERT_EQ(issues.size(), 4u);
  // Sub-cores fetch independently, so all four first issue together.
  for (const auto& i : issues) EXPECT_EQ(i.cycle, issues[0].cycle);
}

TEST(SmRules, OneSubcoreIssuesOneInstructionPerCycle) {
  Script s(test_spec());
  BlockTrace b;
  const uint32_t ffma = s.inst("FFMA", {10}, {2, 3});
  const uint32_t iadd = s.inst("IADD3", {11}, {2, 3});
  for (uint32_t w = 0; w < 8; w += 4) s.add(b, w, w ? iadd : ffma);  // warps 0 and 4: the same sub-core
  for (uint32_t w = 1; w < 8; ++w)
    if (w != 4) s.add(b, w, iadd);
  std::vector<Script::Issue> issues;
  s.run(b, &issues);
  std::map<uint64_t, int> per_cycle_subcore0;
  for (const auto& i : issues)
    if (i.warp % 4 == 0) ++per_cycle_subcore0[i.cycle];
  for (const auto& [cycle, n] : per_cycle_subcore0) EXPECT_EQ(n, 1) << cycle;
}

TEST(SmRules, BarrierHoldsWarpsUntilTheLastArrives) {
  Script s(test_spec());
  BlockTrace b;
  const uint32_t bar = s.inst("BAR.SYNC", {}, {});
  const uint32_t chain = s.inst("FFMA", {1}, {1, 3});
  const uint32_t after = s.inst("FADD", {20}, {2, 3});
  s.add(b, 0, bar);
  s.add(b, 0, after);
  for (int i = 0; i < 10; ++i) s.add(b, 1, chain);
  s.add(b, 1, bar);
  s.add(b, 1, after);
  std::vector<Script::Issue> issues;
  s.run(b, &issues);
  uint64_t last_bar = 0, w0_after = 0, w1_after = 0;
  for (const auto& i : issues) {
    if (i.warp == 1 && i.index == 10) last_bar = i.cycle;
    if (i.warp == 0 && i.index == 1) w0_after = i.cycle;
    if (i.warp == 1 && i.index == 11) w1_after = i.cycle;
  }
  EXPECT_GT(last_bar, 9 * kSpLatency);  // warp 1 reached the barrier only after its chain
  EXPECT_GT(w0_after, last_bar);        // warp 0 waited for it
  EXPECT_EQ(w0_after, last_bar + 1);    // and went on in the next cycle
  EXPECT_EQ(w1_after, last_bar + 1);
  EXPECT_GT(s.stats().stalls[size_t(StallReason::kBarrier)], 0u);
}

TEST(SmRules, RegisterBankConflictCostsACycle) {
  auto chain = [](uint16_t a, uint16_t b) {
    Script s(test_spec());  // 2 banks: bank = register % 2
    BlockTrace blk;
    const uint32_t produce = s.inst("FFMA", {7}, {a, b});
    const uint32_t consume = s.inst("FADD", {9}, {7, 8});
    s.add(blk, 0, produce);
    s.add(blk, 0, consume);
    std::vector<Script::Issue> issues;
    s.run(blk, &issues);
    return std::make_pair(issues.at(1).cycle - issues.at(0).cycle, s.stats().reg_bank_conflicts);
  };
  const auto [no_conflict, c0] = chain(2, 3);  // banks 0 and 1
  const auto [conflict, c1] = chain(2, 4);     // both bank 0
  EXPECT_EQ(no_conflict, kSpLatency);
  EXPECT_EQ(conflict, kSpLatency + 1);
  EXPECT_EQ(c0, 0u);
  EXPECT_EQ(c1, 1u);
}

TEST(SmRules, OperandCollectorsLimitIssue) {
  // One collector unit: an instruction with a bank conflict holds it for two
  // cycles, so the next instruction (another unit, no dependence) waits one.
  auto gap = [](uint32_t collectors) {
    SmSpec spec = test_spec();
    spec.collector_units = collectors;
    Script s(spec);
    BlockTrace b;
    s.add(b, 0, s.inst("FFMA", {7}, {2, 4}));   // R2, R4: both bank 0
    s.add(b, 0, s.inst("IADD3", {9}, {3, 5}));  // independent, INT unit
    std::vector<Script::Issue> issues;
    s.run(b, &issues);
    return issues.at(1).cycle - issues.at(0).cycle;
  };
  EXPECT_EQ(gap(2), 1u);
  EXPECT_EQ(gap(1), 2u);
}

TEST(SmRules, DepbarWaitsForClosedCopyGroups) {
  // Two LDGSTS groups issued a few cycles apart; DEPBAR.LE SB0, N lets N
  // closed groups stay in flight.
  auto after_depbar = [](int64_t n, uint64_t& first_copy, uint64_t& second_copy) {
    SmSpec spec = test_spec();
    spec.perfect_memory_latency = 50;
    Script s(spec);
    BlockTrace b;
    std::vector<uint64_t> one_lane = {0x1000};
    s.add(b, 0, s.inst("LDGSTS.E", {}, {2, 3}, 4), one_lane);  // group 0
    s.add(b, 0, s.inst("LDGDEPBAR", {}, {}));
    for (uint16_t i = 0; i < 4; ++i) s.add(b, 0, s.inst("FFMA", {uint16_t(20 + i)}, {2, 3}));
    s.add(b, 0, s.inst("LDGSTS.E", {}, {4, 5}, 4), one_lane);  // group 1
    s.add(b, 0, s.inst("LDGDEPBAR", {}, {}));
    s.add(b, 0, s.inst("DEPBAR.LE", {}, {}, 0, n));
    s.add(b, 0, s.inst("FADD", {30}, {2, 3}));
    std::vector<Script::Issue> issues;
    s.run(b, &issues);
    first_copy = issues.at(0).cycle;
    second_copy = issues.at(6).cycle;
    return issues.at(8).cycle;  // the DEPBAR itself
  };
  uint64_t a = 0, b = 0;
  const uint64_t wait_one_left = after_depbar(1, a, b);
  EXPECT_GT(b, a);
  EXPECT_EQ(wait_one_left, a + 50);  // group 0 done; group 1 may still fly
  const uint64_t wait_all = after_depbar(0, a, b);
  EXPECT_EQ(wait_all, b + 50);
}

TEST(SmRules, BranchLatencyAppliesWithoutABranchUnit) {
  SmSpec spec = test_spec();
  spec.units.pop_back();  // no BRANCH class declared
  spec.branch_latency = 7;
  Script s(spec);
  BlockTrace b;
  s.add(b, 0, s.inst("BRA", {7}, {2}));     // a control instruction with a result
  s.add(b, 0, s.inst("FADD", {9}, {7, 8}));  // depends on it
  std::vector<Script::Issue> issues;
  s.run(b, &issues);
  EXPECT_EQ(issues.at(1).cycle - issues.at(0).cycle, 7u);
}

TEST(SmRules, FetchingMoreWarpsPerCycleKeepsBuffersFull) {
  auto cycles = [](uint32_t fetch_per_cycle) {
    SmSpec spec = test_spec();
    spec.ibuffer_entries = 1;
    spec.fetch_per_cycle = fetch_per_cycle;
    spec.issue_width = 2;  // two warps of one sub-core issue per cycle (different units)
    spec.units[0].initiation = 1;
    spec.units[1].initiation = 1;
    Script s(spec);
    BlockTrace b;
    for (uint16_t i = 0; i < 8; ++i) {
      s.add(b, 0, s.inst("IADD3", {uint16_t(10 + i)}, {2, 3}));
      s.add(b, 4, s.inst("FADD", {uint16_t(30 + i)}, {2, 3}));
    }
    return s.run(b);
  };
  EXPECT_LT(cycles(2), cycles(1));
}

std::vector<uint32_t> issue_order(WarpSchedulerPolicy policy) {
  SmSpec spec = test_spec();
  spec.scheduler = policy;
  spec.units[1].initiation = 1;  // INT issues every cycle
  Script s(spec);
  BlockTrace b;
  // Warps 0 and 4 share sub-core 0; three independent IADD3 each.
  for (uint32_t w : {0u, 4u})
    for (uint16_t i = 0; i < 3; ++i) s.add(b, w, s.inst("IADD3", {uint16_t(10 + i)}, {2, 3}));
  std::vector<Script::Issue> issues;
  s.run(b, &issues);
  std::vector<uint32_t> order;
  for (const auto& i : issues)
    if (i.warp % 4 == 0) order.push_back(i.warp);
  return order;
}

TEST(SmRules, GreedyThenOldestStaysOnOneWarp) {
  EXPECT_EQ(issue_order(WarpSchedulerPolicy::kGto), (std::vector<uint32_t>{0, 0, 0, 4, 4, 4}));
}

TEST(SmRules, LooseRoundRobinAlternatesWarps) {
  EXPECT_EQ(issue_order(WarpSchedulerPolicy::kLrr), (std::vector<uint32_t>{0, 4, 0, 4, 0, 4}));
}

TEST(SmRules, SharedMemoryBankConflictsSerialise) {
  auto run = [](uint64_t stride) {
    Script s(test_spec());
    BlockTrace b;
    std::vector<uint64_t> addrs;
    for (uint64_t lane = 0; lane < 32; ++lane) addrs.push_back(lane * stride);
    s.add(b, 0, s.inst("LDS", {10}, {2}, 4), addrs);
    s.run(b);
    return s.stats().shared_bank_conflicts;
  };
  EXPECT_EQ(run(4), 0u);    // one word per bank
  EXPECT_EQ(run(8), 1u);    // two words per bank: 2 wavefronts
  EXPECT_EQ(run(128), 31u); // every lane in bank 0: 32 wavefronts
  EXPECT_EQ(run(0), 0u);    // one word, broadcast
}

TEST(SmRules, OccupancyMatchesTheCudaCalculatorForVolta) {
  SmSpec v = test_spec();  // compute capability 7.0 limits
  v.registers = 65536;
  v.reg_alloc_granularity = 256;
  v.max_warps = 64;
  v.max_blocks = 32;
  v.max_threads = 2048;
  v.shared_carveouts_kb = {0, 8, 16, 32, 64, 96};
  v.max_shared_per_block_kb = 96;
  v.unified_l1_shared_kb = 128;
  struct Case {
    uint32_t threads, regs, shared, blocks;
  } cases[] = {
      {256, 32, 0, 8},          // 64 warps: 100%
      {256, 64, 0, 4},          // registers: 2048 per warp
      {128, 40, 0, 12},         // 1280 registers per warp -> 51 warps -> 12 blocks
      {1024, 32, 0, 2},         // warps
      {32, 16, 0, 32},          // block slots
      {256, 32, 48 * 1024, 2},  // shared memory: 96 KB carve-out
      {256, 32, 20 * 1024, 4},  // 4 x 20 KB fit in the 96 KB carve-out
      {96, 255, 0, 2},          // 255 regs: 8192 per warp (after rounding), 3 warps per block
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.threads) + " threads, " + std::to_string(c.regs) + " regs, " + std::to_string(c.shared) + " B");
    EXPECT_EQ(compute_occupancy(v, KernelShape{c.threads, c.regs, c.shared}).blocks_per_sm, c.blocks);
  }
  // The carve-out: the smallest one that keeps the occupancy.
  EXPECT_EQ(compute_occupancy(v, KernelShape{256, 32, 8 * 1024}).carveout_kb, 64u);
  EXPECT_EQ(compute_occupancy(v, KernelShape{256, 32, 0}).carveout_kb, 0u);
  EXPECT_THROW(compute_occupancy(v, KernelShape{256, 32, 100 * 1024}), std::invalid_argument);
}

// A block dim of (65536,65536,1) is 2^32 threads: its size is computed
// without wrapping (it used to be "a block of 0 threads") and no SM takes it.
TEST(Occupancy, BlockSizesBeyond32BitsAreNeverWrapped) {
  KernelInfo k;
  k.block = Dim3{65536, 65536, 1};
  EXPECT_EQ(k.threads_per_block(), uint64_t(1) << 32);
  EXPECT_EQ(k.warps_per_block(), 1u << 27);
  k.block = Dim3{UINT32_MAX, UINT32_MAX, UINT32_MAX};  // 2^96: saturated
  EXPECT_EQ(k.threads_per_block(), UINT64_MAX);
  EXPECT_EQ(k.warps_per_block(), UINT32_MAX);
  EXPECT_EQ((Dim3{UINT32_MAX, UINT32_MAX, 1}.volume()), uint64_t(UINT32_MAX) * UINT32_MAX);
  const SmSpec sm;
  for (uint64_t threads : {uint64_t(1) << 32, (uint64_t(1) << 32) + 32, UINT64_MAX}) {
    try {
      compute_occupancy(sm, KernelShape{threads, 32, 0});
      ADD_FAILURE() << threads << " threads fit";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                "a block of " + std::to_string(threads) + " threads exceeds the SM's 2048 threads");
    }
  }
}

}  // namespace
}  // namespace lockstep
