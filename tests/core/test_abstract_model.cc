// The abstract timing model (core/abstract/): basic blocks from the warps'
// paths; a single warp timed exactly as the cycle model times it (perfect
// memory: the pre-characterisation is that run); barriers; the warp
// scheduler's policy moving cycles the way the cycle model's does.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "configs/spec/config_dir.h"
#include "configs/spec/gpu_config.h"
#include "core/abstract/basic_blocks.h"
#include "core/abstract/memory_levels.h"
#include "core/kernel_program.h"
#include "frontend/isa/isa_def.h"
#include "frontend/text/text_trace_source.h"
#include "parallel/simulation.h"
#include "tests/core/abstract_trace.h"

namespace lockstep {
namespace {

using test::hex_pc;

// The blocks of a kernel whose warps took `paths` (static instructions at PC
// 16 * index, opcodes from `opcodes`), as lists of static ids; and each
// warp's path as block ids.
struct Split {
  std::vector<std::vector<uint32_t>> blocks;
  std::vector<std::vector<uint32_t>> paths;
};

Split split(const std::vector<std::string>& opcodes, const std::vector<std::vector<uint32_t>>& paths) {
  StaticTable table;
  for (size_t i = 0; i < opcodes.size(); ++i) {
    StaticInstruction s;
    s.pc = 16 * i;
    s.opcode_id = table.intern_opcode(opcodes[i]);
    s.dsts.push_back(RegRef{RegKind::kR, uint16_t(i + 1)});  // distinct entries
    table.intern(s);
  }
  const SmSpec sm = load_gpu_spec("QV100", {}).sm;
  const IsaDef isa = IsaDef::for_binary_version(70, default_config_dir());
  KernelProgram program(
      sm,
      [&](const std::string& op, const std::string& where) {
        const IsaDef::Entry e = isa.resolve(op, where);
        return std::make_pair(e.unit, e.kind);
      },
      "test");
  program.extend(table);
  FallThrough fall;
  fall.grow(table);
  BasicBlocks::Builder builder;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> runs(paths.size());
  for (size_t w = 0; w < paths.size(); ++w) {
    WarpTrace warp;
    for (uint32_t s : paths[w]) warp.insts.push_back(WarpInstruction{s, 0xffffffffu, 0});
    fall.runs(warp, [&](uint32_t first, uint32_t last, uint32_t length) {
      runs[w].emplace_back(first, length);
      builder.add_run(first, last);
    });
  }
  const BasicBlocks blocks = builder.build(table, program, fall);
  Split out;
  for (const BasicBlock& b : blocks.blocks())
    out.blocks.emplace_back(blocks.insts().begin() + b.begin, blocks.insts().begin() + b.begin + b.size);
  for (const auto& warp_runs : runs) {
    std::vector<uint32_t>& path = out.paths.emplace_back();
    for (auto [first, length] : warp_runs)
      EXPECT_TRUE(blocks.for_each_block(first, length, fall, [&](uint32_t b) { path.push_back(b); }));
  }
  return out;
}

using Ids = std::vector<std::vector<uint32_t>>;

TEST(AbstractBasicBlocks, ABranchEndsABlockAlsoWhenItFallsThrough) {
  // 0 IADD3, 1 BRA (never taken), 2 FFMA, 3 EXIT.
  const Split s = split({"IADD3", "BRA", "FFMA", "EXIT"}, {{0, 1, 2, 3}});
  EXPECT_EQ(s.blocks, (Ids{{0, 1}, {2, 3}}));
  EXPECT_EQ(s.paths, (Ids{{0, 1}}));
}

TEST(AbstractBasicBlocks, ATakenBranchSplitsAtItsTargetAndTheWarpsShareTheBlocks) {
  // Warp 0 jumps over instruction 2; warp 1 falls through.
  const Split s = split({"IADD3", "BRA", "FFMA", "FFMA", "EXIT"}, {{0, 1, 3, 4}, {0, 1, 2, 3, 4}});
  EXPECT_EQ(s.blocks, (Ids{{0, 1}, {2}, {3, 4}}));
  EXPECT_EQ(s.paths, (Ids{{0, 2}, {0, 1, 2}}));
}

TEST(AbstractBasicBlocks, ALoopBodyIsOneBlockVisitedPerIteration) {
  // 0 IADD3, 1 FFMA, 2 FFMA, 3 BRA back to 1 (twice), 4 EXIT.
  const Split s = split({"IADD3", "FFMA", "FFMA", "BRA", "EXIT"}, {{0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 4}});
  EXPECT_EQ(s.blocks, (Ids{{0}, {1, 2, 3}, {4}}));
  EXPECT_EQ(s.paths, (Ids{{0, 1, 1, 1, 2}}));
}

TEST(AbstractBasicBlocks, CallAndReturnSplitAtTheCalleeAndAfterTheCall) {
  // 0 IADD3, 1 CALL 4, 2 FFMA, 3 EXIT | callee: 4 FFMA, 5 RET (back to 2).
  const Split s = split({"IADD3", "CALL", "FFMA", "EXIT", "FFMA", "RET"}, {{0, 1, 4, 5, 2, 3}});
  EXPECT_EQ(s.blocks, (Ids{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(s.paths, (Ids{{0, 2, 1}}));
}

TEST(AbstractBasicBlocks, DivergentPathsSerialisedInTheTraceSplitWhereTheyJoin) {
  // if/else: 0 BRA, then-side 1 FFMA 2 BRA, else-side 3 FFMA, join 4 FFMA 5 EXIT.
  // Warp 0 diverges (the else side first, then the then side), warp 1 takes the then side.
  const Split s = split({"BRA", "FFMA", "BRA", "FFMA", "FFMA", "EXIT"}, {{0, 3, 1, 2, 4, 5}, {0, 1, 2, 4, 5}});
  EXPECT_EQ(s.blocks, (Ids{{0}, {1, 2}, {3}, {4, 5}}));
  EXPECT_EQ(s.paths, (Ids{{0, 2, 1, 3}, {0, 1, 3}}));
}

// Runs the trace in `dir` on QV100 with `model`, perfect memory unless `full_memory`.
SimulationReport run(const std::filesystem::path& dir, const std::string& model, const std::vector<std::string>& sets,
                     bool full_memory = false) {
  TextTraceSource trace(dir, nullptr);
  const GpuSpec spec = load_gpu_spec("QV100", sets);
  RunOptions o;
  o.model = model;
  o.memory_model = full_memory ? "cycle" : "perfect";
  return simulate(trace, spec, o);
}

// A straight-line warp: dependent and independent arithmetic, SFU, a global
// load and its reader, shared-memory store and load, a branch that falls
// through, EXIT.
test::WarpLines straight_line_warp(uint64_t base) {
  char ldg[96], stg[96];
  std::snprintf(ldg, sizeof ldg, "0060 ffffffff 1 R10 LDG.E.SYS 1 R2 4 1 0x%llx 4", (unsigned long long)base);
  std::snprintf(stg, sizeof stg, "0100 ffffffff 0 STG.E.SYS 2 R2 R10 4 1 0x%llx 4", (unsigned long long)base);
  return {"0000 ffffffff 1 R1 IADD3 2 R2 R3 0",
          "0010 ffffffff 1 R4 FFMA 2 R1 R2 0",
          "0020 ffffffff 1 R5 FFMA 2 R4 R4 0",
          "0030 ffffffff 1 R6 FFMA 2 R2 R3 0",
          "0040 ffffffff 1 R7 MUFU.RCP 1 R5 0",
          "0050 ffffffff 1 R8 FFMA 2 R7 R6 0",
          ldg,
          "0070 ffffffff 1 R11 FFMA 2 R10 R8 0",
          "0080 ffffffff 0 STS 2 R20 R11 4 1 0x100 4",
          "0090 ffffffff 1 R12 LDS 1 R20 4 1 0x100 4",
          "00a0 ffffffff 0 BRA 0 0",
          "00b0 ffffffff 1 R13 FFMA 2 R12 R12 0",
          "00c0 ffffffff 1 R14 IADD3 2 R13 R1 0",
          "00d0 ffffffff 1 R15 FFMA 2 R14 R14 0",
          "00e0 ffffffff 1 R16 FFMA 2 R15 R15 0",
          "00f0 ffffffff 1 R17 FFMA 2 R16 R15 0",
          stg,
          "0110 ffffffff 0 EXIT 0 0"};
}

TEST(AbstractModel, ASingleWarpKernelTakesExactlyTheCycleModelsCycles) {
  test::ScratchDir dir("abstract-one-warp");
  test::write_abstract_kernel(dir.path(), {{straight_line_warp(0x7f0000000000)}}, 32);
  const SimulationReport cycle = run(dir.path(), "cycle", {});
  const SimulationReport abstract = run(dir.path(), "abstract", {});
  ASSERT_EQ(cycle.kernels.size(), 1u);
  ASSERT_EQ(abstract.kernels.size(), 1u);
  EXPECT_GT(cycle.kernels[0].cycles, 40u);
  EXPECT_EQ(abstract.kernels[0].cycles, cycle.kernels[0].cycles);
  EXPECT_EQ(abstract.kernels[0].stats.warp_insts, cycle.kernels[0].stats.warp_insts);
  EXPECT_EQ(abstract.kernels[0].stats.thread_insts, cycle.kernels[0].stats.thread_insts);
  EXPECT_EQ(abstract.kernels[0].stats.unit_issues, cycle.kernels[0].stats.unit_issues);
}

TEST(AbstractModel, OneWarpBlocksInSequenceOnOneSmTakeExactlyTheCycleModelsCycles) {
  // Three one-warp blocks on one SM, one resident at a time: the second and
  // third start with a warm instruction cache, a block after the previous retired.
  test::ScratchDir dir("abstract-sequence");
  test::write_abstract_kernel(dir.path(),
                              {{straight_line_warp(0x7f0000000000)}, {straight_line_warp(0x7f0000001000)},
                               {straight_line_warp(0x7f0000002000)}},
                              32);
  const std::vector<std::string> one_at_a_time = {"gpu.sms=1", "sm.max_blocks=1"};
  const SimulationReport cycle = run(dir.path(), "cycle", one_at_a_time);
  const SimulationReport abstract = run(dir.path(), "abstract", one_at_a_time);
  EXPECT_EQ(abstract.kernels.at(0).cycles, cycle.kernels.at(0).cycles);
  EXPECT_EQ(abstract.kernels.at(0).stats.blocks_launched, 3u);
}

TEST(AbstractModel, BlockLaunchIntervalsBoundTheKernelAsInTheCycleModel) {
  // Forty short one-warp blocks on two SMs. A GPU-wide interval between block
  // launches (launch.block_interval_cycles) or one per SM
  // (launch.sm_block_interval_cycles) longer than a block's work makes the
  // dispatch, not the SMs, the bound: about 40 x 100 cycles, or 20 x 300.
  std::vector<test::BlockLines> blocks;
  for (int b = 0; b < 40; ++b) blocks.push_back({straight_line_warp(0x7f0000000000ull + 0x1000ull * b)});
  test::ScratchDir dir("abstract-launch-interval");
  test::write_abstract_kernel(dir.path(), blocks, 32);
  const std::vector<std::string> base = {"gpu.sms=2", "launch.kernel_start_cycles=0", "launch.kernel_drain_cycles=0",
                                         "launch.block_interval_cycles=0", "launch.sm_block_interval_cycles=1"};
  for (const std::string& interval : {std::string("launch.block_interval_cycles=100"),
                                      std::string("launch.sm_block_interval_cycles=300")}) {
    SCOPED_TRACE(interval);
    std::vector<std::string> sets = base;
    sets.push_back(interval);
    const uint64_t free_cycles = run(dir.path(), "cycle", base).kernels.at(0).cycles;
    const uint64_t cycle = run(dir.path(), "cycle", sets).kernels.at(0).cycles;
    const uint64_t abstract = run(dir.path(), "abstract", sets).kernels.at(0).cycles;
    ASSERT_GT(cycle, 3 * free_cycles);  // the premise: the interval is the bound
    EXPECT_GE(cycle, 3900u);
    EXPECT_NEAR(double(abstract), double(cycle), 0.02 * double(cycle));
  }
}

// A warp's trace lines: `body` at PCs 0, 16, 32, ..., then EXIT.
test::WarpLines numbered(const std::vector<std::string>& body) {
  test::WarpLines lines;
  uint32_t pc = 0;
  for (const std::string& text : body) {
    lines.push_back(hex_pc(pc) + text);
    pc += 16;
  }
  lines.push_back(hex_pc(pc) + " ffffffff 0 EXIT 0 0");
  return lines;
}

// `text` (a global memory instruction up to its access width) with its
// lanes' addresses: from `base`, `stride` bytes apart.
std::string with_lanes(const std::string& text, uint64_t base, uint32_t stride) {
  char addresses[48];
  std::snprintf(addresses, sizeof addresses, " 1 0x%llx %u", (unsigned long long)base, stride);
  return text + addresses;
}

// One SM, no kernel start-up or drain: the cycles are the kernel's own.
const std::vector<std::string> kOneSm = {"gpu.sms=1", "launch.kernel_start_cycles=0", "launch.kernel_drain_cycles=0"};

// The kernel in `dir` on both models with the full memory system.
struct CycleAndAbstract {
  SimulationReport cycle, abstract;
  uint64_t cycle_cycles() const { return cycle.kernels.at(0).cycles; }
  uint64_t abstract_cycles() const { return abstract.kernels.at(0).cycles; }
};
CycleAndAbstract run_both(const std::filesystem::path& dir, const std::vector<std::string>& sets) {
  return {run(dir, "cycle", sets, true), run(dir, "abstract", sets, true)};
}

// The abstract model's kernel cycles within 15% of the cycle model's.
void expect_close(const CycleAndAbstract& r) {
  EXPECT_NEAR(double(r.abstract_cycles()), double(r.cycle_cycles()), 0.15 * double(r.cycle_cycles()));
}

TEST(AbstractModel, EverySubWarpGroupsRequestCostsTheL1AndTheL2AsInTheCycleModel) {
  // Sixteen warps on one SM, each storing 16 times from all lanes to one
  // word: the coalescer's four 8-lane groups each send the sector, so every
  // store takes four L1 lookups (one data bank) and four L2 writes to one
  // slice. Counting the line once per instruction makes the kernel about
  // four times too fast.
  const test::BlockLines block(16, numbered(std::vector<std::string>(16, " ffffffff 0 STG.E.SYS 2 R2 R3 4 1 0x7f0000000100 0")));
  test::ScratchDir dir("abstract-group-requests");
  test::write_abstract_kernel(dir.path(), {block}, 512);
  const CycleAndAbstract r = run_both(dir.path(), kOneSm);
  ASSERT_EQ(r.cycle.kernels.at(0).stats.global_st_sectors, 4u * 16 * 16);  // the premise: four requests a store
  EXPECT_GT(r.cycle_cycles(), 4u * 16 * 16);
  expect_close(r);
}

TEST(AbstractModel, TheCachesSeeABlocksWarpsSideBySideNotOneWarpAfterAnother) {
  // Eight warps of one block, each a chain of eight dependent loads (each
  // load's address register is the one before's result) walking the same
  // eight lines, each warp from another line: warp w reads lines w, w+1, ...
  // (mod 8). Run side by side, the first round misses every line once (one
  // line per warp, at the same time) and the other rounds hit what the
  // others fetched: about one memory latency a warp, then L1 hits. Taken one
  // warp after another, warp 0 would miss all eight lines in a chain and the
  // kernel would take about eight latencies.
  constexpr int kWarps = 8, kLines = 8;
  test::BlockLines block;
  for (int w = 0; w < kWarps; ++w) {
    std::vector<std::string> body;
    for (int i = 0; i < kLines; ++i)
      body.push_back(with_lanes(" ffffffff 1 R1 LDG.E.SYS 1 R1 4", 0x7f0000000000ull + 128ull * ((w + i) % kLines), 0));
    block.push_back(numbered(body));
  }
  test::ScratchDir dir("abstract-interleaved-caches");
  test::write_abstract_kernel(dir.path(), {block}, 32 * kWarps);
  const CycleAndAbstract r = run_both(dir.path(), kOneSm);
  // The premise: in the cycle model the first round's misses are most of the kernel.
  const MemoryLatencies latencies = memory_latencies(load_gpu_spec("QV100", kOneSm));
  ASSERT_GT(r.cycle_cycles(), latencies.dram);
  ASSERT_LT(r.cycle_cycles(), 2 * latencies.dram);
  expect_close(r);
}

TEST(AbstractModel, StoresBeyondTheL1MissQueueHoldTheLdStUnitUntilTheL2TakesThem) {
  // Four warps, each sixteen stores from all lanes 32 B apart: 32 sector
  // writes a store, in 8 lines (8 L1 lookup cycles). The L1 sends the L2 one
  // request a cycle and holds l1d.miss_queue of them; beyond that its LD/ST
  // unit stalls (the cycle model's reservation failures), so the kernel
  // takes about a cycle per sector (2,048), not per line (512).
  test::BlockLines block;
  for (int w = 0; w < 4; ++w) {
    std::vector<std::string> body;
    for (int i = 0; i < 16; ++i)
      body.push_back(with_lanes(" ffffffff 0 STG.E.SYS 2 R2 R3 4", 0x7f0000000000ull + 1024ull * (16 * w + i), 32));
    block.push_back(numbered(body));
  }
  test::ScratchDir dir("abstract-store-port");
  test::write_abstract_kernel(dir.path(), {block}, 128);
  const CycleAndAbstract r = run_both(dir.path(), kOneSm);
  ASSERT_EQ(r.cycle.kernels.at(0).stats.global_st_sectors, 4u * 16 * 32);  // the premise: 32 sectors a store
  EXPECT_GT(r.cycle_cycles(), 4u * 16 * 32);
  expect_close(r);
}

TEST(AbstractModel, LoadRepliesEnterTheL1OneSectorACycle) {
  // Sixteen warps, each two loads from all lanes 32 B apart (32 sectors, 8
  // lines each) and a reader of both. With a miss queue deep enough never to
  // stall the LD/ST unit (l1d.miss_queue=1024), the loads issue a lookup
  // cycle per line; their 1,024 replies still enter the L1 one a cycle, so the
  // last data comes about 1,024 cycles after the first request, not one
  // latency after the last issue (about 256 cycles of lookups).
  test::BlockLines block;
  for (int w = 0; w < 16; ++w) {
    std::vector<std::string> body;
    for (int i = 0; i < 2; ++i)
      body.push_back(with_lanes(" ffffffff 1 R" + std::to_string(10 + i) + " LDG.E.SYS 1 R2 4",
                                0x7f0000000000ull + 1024ull * (2 * w + i), 32));
    body.push_back(" ffffffff 1 R1 FADD 2 R10 R11 0");
    block.push_back(numbered(body));
  }
  test::ScratchDir dir("abstract-reply-port");
  test::write_abstract_kernel(dir.path(), {block}, 512);
  std::vector<std::string> sets = kOneSm;
  sets.push_back("l1d.miss_queue=1024");
  const CycleAndAbstract r = run_both(dir.path(), sets);
  EXPECT_GT(r.cycle_cycles(), 16u * 2 * 32);  // the premise: a cycle per reply
  expect_close(r);
}

TEST(AbstractModel, AWarpKeepsSixteenLoadsInFlight) {
  // One warp: sixteen independent loads (each its own register and line),
  // then a reader of each. The scoreboard lets all sixteen be in flight at
  // once, so the kernel takes about one memory latency; a warp that could
  // track only eight results would wait for the first eight before the
  // ninth issues, and take two.
  std::vector<std::string> body;
  for (int i = 0; i < 16; ++i)
    body.push_back(with_lanes(" ffffffff 1 R" + std::to_string(10 + i) + " LDG.E.SYS 1 R2 4", 0x7f0000000000ull + 4096ull * i, 4));
  for (int i = 0; i < 16; ++i) body.push_back(" ffffffff 1 R3 FADD 2 R" + std::to_string(10 + i) + " R3 0");
  test::ScratchDir dir("abstract-loads-in-flight");
  test::write_abstract_kernel(dir.path(), {{numbered(body)}}, 32);
  const CycleAndAbstract r = run_both(dir.path(), kOneSm);
  const MemoryLatencies latencies = memory_latencies(load_gpu_spec("QV100", kOneSm));
  ASSERT_LT(r.cycle_cycles(), 2 * latencies.dram);  // the premise: the loads overlap
  expect_close(r);
}

// A chain of `n` dependent FFMAs from PC `pc` on register R1.
void chain(test::WarpLines& w, uint32_t& pc, int n) {
  for (int i = 0; i < n; ++i, pc += 16) w.push_back(hex_pc(pc) + " ffffffff 1 R1 FFMA 2 R1 R2 0");
}

TEST(AbstractModel, AWarpWaitsAtTheBarrierUntilEveryWarpOfItsBlockArrives) {
  // Warp 0 runs a chain, then the barrier; warp 1 reaches the barrier at
  // once, then runs the same chain: with the barrier its chain starts after
  // warp 0's, without it both chains overlap.
  auto kernel = [](bool barrier) {
    test::WarpLines w0, w1;
    uint32_t pc = 0;
    chain(w0, pc, 40);
    const uint32_t bar_pc = pc;
    w0.push_back(hex_pc(bar_pc) + (barrier ? " ffffffff 0 BAR.SYNC 0 0" : " ffffffff 0 NOP 0 0"));
    w1.push_back(hex_pc(bar_pc) + (barrier ? " ffffffff 0 BAR.SYNC 0 0" : " ffffffff 0 NOP 0 0"));
    pc = bar_pc + 16;
    uint32_t pc1 = pc;
    chain(w1, pc1, 40);
    w0.push_back(hex_pc(pc1) + " ffffffff 0 EXIT 0 0");
    w1.push_back(hex_pc(pc1) + " ffffffff 0 EXIT 0 0");
    return test::BlockLines{w0, w1};
  };
  test::ScratchDir with("abstract-bar"), without("abstract-nobar");
  test::write_abstract_kernel(with.path(), {kernel(true)}, 64);
  test::write_abstract_kernel(without.path(), {kernel(false)}, 64);
  const uint64_t a_with = run(with.path(), "abstract", {}).kernels.at(0).cycles;
  const uint64_t a_without = run(without.path(), "abstract", {}).kernels.at(0).cycles;
  const uint64_t c_with = run(with.path(), "cycle", {}).kernels.at(0).cycles;
  // 40 dependent FFMAs of latency >= 4 each: the barrier serialises at least 160 cycles more.
  EXPECT_GE(a_with, a_without + 160);
  // And close to the cycle model (not exact: there warp 1 fetched past the
  // barrier while it waited; here it meets its next block's cold fetch after it).
  EXPECT_NEAR(double(a_with), double(c_with), 0.15 * double(c_with));
}

TEST(AbstractModel, GreedyThenOldestBeatsRoundRobinWhenWarpsComputeThenLoad) {
  // Eight warps on one scheduler, each: independent arithmetic, a long load,
  // its reader, more arithmetic. Round robin brings every warp to its load
  // at about the same time, so no arithmetic hides the loads; greedy-then-
  // oldest staggers them. The abstract model must move the cycles the way
  // the cycle model does.
  test::BlockLines block;
  for (int w = 0; w < 8; ++w) {
    std::vector<std::string> body;
    for (int i = 0; i < 24; ++i) body.push_back(" ffffffff 1 R" + std::to_string(3 + i % 4) + " FFMA 2 R1 R2 0");
    char ldg[96];
    std::snprintf(ldg, sizeof ldg, " ffffffff 1 R10 LDG.E.SYS 1 R2 4 1 0x%llx 4", 0x7f0000000000ull + 128ull * w);
    body.push_back(ldg);
    body.push_back(" ffffffff 1 R11 FFMA 2 R10 R10 0");
    for (int i = 0; i < 24; ++i) body.push_back(" ffffffff 1 R" + std::to_string(3 + i % 4) + " FFMA 2 R1 R2 0");
    block.push_back(numbered(body));
  }
  test::ScratchDir dir("abstract-policy");
  test::write_abstract_kernel(dir.path(), {block}, 256);
  auto cycles = [&](const std::string& model, const std::string& policy) {
    return run(dir.path(), model, {"sm.subcores=1", "sm.scheduler=" + policy, "sm.perfect_memory_latency=300"})
        .kernels.at(0)
        .cycles;
  };
  const uint64_t cycle_lrr = cycles("cycle", "lrr"), cycle_gto = cycles("cycle", "gto");
  const uint64_t abstract_lrr = cycles("abstract", "lrr"), abstract_gto = cycles("abstract", "gto");
  ASSERT_LT(cycle_gto, cycle_lrr);  // the premise, in the reference
  EXPECT_LT(abstract_gto, abstract_lrr);
  EXPECT_NEAR(double(abstract_gto), double(cycle_gto), 0.1 * double(cycle_gto));
  EXPECT_NEAR(double(abstract_lrr), double(cycle_lrr), 0.1 * double(cycle_lrr));
}

}  // namespace
}  // namespace lockstep
