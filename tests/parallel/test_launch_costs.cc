// The kernel-level costs (launch.*, parallel/kernel_dispatcher.h), each alone
// and together, on kernels of empty blocks (one warp that only EXITs) with
// perfect memory, so that nothing but the dispatcher depends on time. E1 is
// the cycles of a one-block kernel without costs: from the kernel's start
// (its block offered in that cycle) to the end of the block. Each expected
// count is derived from the rule, not copied from a run:
//   start S:            cycles = cycles without costs + S
//   drain D:            cycles = cycles without costs + D; the next kernel starts D later
//   GPU interval G:     block k launches at k*G, so B blocks take (B - 1) * G + E1
//   per-SM interval P:  each scan gives every SM one block, an SM the next P
//                       later: B blocks on N SMs take (ceil(B / N) - 1) * P + E1
// (G and P above E1, so that no block waits for another's end). A block on an
// SM that ran one of the kernel before finds the code in its instruction cache:
// it takes E1 - sm.icache_miss_latency (one line, one refill the less); so
// does the last block when B > N. Skipped cycles
// (fast-forward) give the same counts as simulated ones.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "configs/spec/gpu_config.h"
#include "frontend/text/text_trace_source.h"
#include "parallel/simulation.h"
#include "tests/parallel/chain_kernel.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

constexpr uint32_t kSms = 4;

// Kernels of `blocks[i]` empty blocks each, one stream, in a scratch folder.
struct EmptyKernels {
  test::ScratchDir dir{"launch-costs"};
  explicit EmptyKernels(const std::vector<uint32_t>& blocks) {
    std::ofstream list(dir / "kernelslist.g");
    for (uint32_t i = 0; i < blocks.size(); ++i) {
      const std::string file = "kernel-" + std::to_string(i + 1) + ".traceg";
      test::write_chain_kernel(dir / file, i + 1, 0, blocks[i], 0);
      list << file << "\n";
    }
  }
};

struct Costs {
  uint32_t start = 0, gpu_interval = 0, sm_interval = 0, drain = 0;
};

SimulationReport run(const EmptyKernels& k, const Costs& c, bool fast_forward = true) {
  TextTraceSource src(k.dir.path(), nullptr);
  const GpuSpec spec = load_gpu_spec(
      "QV100", {"gpu.sms=" + std::to_string(kSms), "gpu.kernel_launch_latency=10",
                "launch.kernel_start_cycles=" + std::to_string(c.start),
                "launch.block_interval_cycles=" + std::to_string(c.gpu_interval),
                "launch.sm_block_interval_cycles=" + std::to_string(c.sm_interval),
                "launch.kernel_drain_cycles=" + std::to_string(c.drain)});
  RunOptions o;
  o.memory_model = "perfect";
  o.engine.fast_forward = fast_forward;
  SimulationReport r = simulate(src, spec, o);
  EXPECT_TRUE(r.error.empty()) << r.error;
  return r;
}

uint64_t cycles_of(const EmptyKernels& k, const Costs& c) { return run(k, c).kernels.at(0).cycles; }

// E1: one empty block, no costs.
uint64_t one_block_cycles() {
  const EmptyKernels one({1});
  return cycles_of(one, Costs{});
}

// The cycles of the last of `blocks` empty blocks: E1, or one I-cache refill
// less on an SM that ran a block before (blocks > kSms).
uint64_t last_block_cycles(uint64_t e1, uint32_t blocks) {
  return blocks > kSms ? e1 - load_gpu_spec("QV100").sm.icache_miss_latency : e1;
}

TEST(LaunchCosts, StartDelaysTheFirstBlockAndCountsInTheKernel) {
  const EmptyKernels k({9});
  const uint64_t base = cycles_of(k, Costs{});
  EXPECT_EQ(cycles_of(k, Costs{.start = 300}), base + 300);
  EXPECT_EQ(cycles_of(k, Costs{.start = 1}), base + 1);
}

TEST(LaunchCosts, DrainCountsInTheKernelAndDelaysTheNext) {
  const EmptyKernels k({5, 5});
  const SimulationReport base = run(k, Costs{}), drained = run(k, Costs{.drain = 250});
  ASSERT_EQ(drained.kernels.size(), 2u);
  EXPECT_EQ(drained.kernels[0].cycles, base.kernels[0].cycles + 250);
  EXPECT_EQ(drained.kernels[1].cycles, base.kernels[1].cycles + 250);
  // The whole run: both drains, the second kernel launching after the first's.
  EXPECT_EQ(drained.gpu_cycles, base.gpu_cycles + 2 * 250);
}

TEST(LaunchCosts, GpuIntervalSpacesEveryBlockLaunch) {
  const uint64_t e1 = one_block_cycles();
  const uint32_t g = uint32_t(e1) + 7;
  for (uint32_t blocks : {1u, 2u, 4u, 5u, 13u, 64u}) {
    SCOPED_TRACE(std::to_string(blocks) + " blocks");
    const EmptyKernels k({blocks});
    EXPECT_EQ(cycles_of(k, Costs{.gpu_interval = g}), (blocks - 1) * uint64_t(g) + last_block_cycles(e1, blocks));
  }
}

TEST(LaunchCosts, SmIntervalSpacesTheBlocksOfEachSm) {
  const uint64_t e1 = one_block_cycles();
  const uint32_t p = uint32_t(e1) + 11;
  for (uint32_t blocks : {1u, 4u, 5u, 10u, 33u}) {
    SCOPED_TRACE(std::to_string(blocks) + " blocks");
    const EmptyKernels k({blocks});
    const uint64_t waves = (blocks + kSms - 1) / kSms;
    EXPECT_EQ(cycles_of(k, Costs{.sm_interval = p}), (waves - 1) * p + last_block_cycles(e1, blocks));
  }
  // 0 and 1 are the dispatch without the cost: one block per SM per cycle.
  const EmptyKernels k({33});
  EXPECT_EQ(cycles_of(k, Costs{.sm_interval = 1}), cycles_of(k, Costs{}));
}

TEST(LaunchCosts, AllFourAddUp) {
  const uint64_t e1 = one_block_cycles();
  const uint32_t g = uint32_t(e1) + 3;
  const EmptyKernels k({20});
  // The GPU-wide interval dominates the per-SM one (4 SMs x g > p).
  const Costs c{.start = 120, .gpu_interval = g, .sm_interval = 2 * g, .drain = 45};
  EXPECT_EQ(cycles_of(k, c), 120 + 19 * uint64_t(g) + last_block_cycles(e1, 20) + 45);
}

TEST(LaunchCosts, SkippedCyclesCountAsSimulatedOnes) {
  const EmptyKernels k({7, 30, 1});
  for (const Costs& c : {Costs{.start = 500}, Costs{.gpu_interval = 37}, Costs{.sm_interval = 41},
                         Costs{.drain = 333}, Costs{.start = 90, .gpu_interval = 3, .sm_interval = 29, .drain = 70}}) {
    const SimulationReport fast = run(k, c, true), slow = run(k, c, false);
    ASSERT_EQ(fast.kernels.size(), slow.kernels.size());
    for (size_t i = 0; i < fast.kernels.size(); ++i) EXPECT_EQ(fast.kernels[i].cycles, slow.kernels[i].cycles) << i;
    EXPECT_EQ(fast.gpu_cycles, slow.gpu_cycles);
    EXPECT_GT(fast.engine.skipped_cycles, 0u) << "the waits are skipped, not simulated";
  }
}

TEST(LaunchCosts, ImpossibleValuesAreOneLineErrors) {
  auto error_of = [](const std::vector<std::string>& sets) {
    try {
      (void)load_gpu_spec("QV100", sets);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const char* key : {"launch.kernel_start_cycles", "launch.block_interval_cycles",
                          "launch.sm_block_interval_cycles", "launch.kernel_drain_cycles"}) {
    SCOPED_TRACE(key);
    const std::string negative = error_of({std::string(key) + "=-5"});
    EXPECT_NE(negative.find(key), std::string::npos) << negative;
    EXPECT_NE(negative.find("not an unsigned integer"), std::string::npos) << negative;
    const std::string absurd = error_of({std::string(key) + "=5000000"});
    EXPECT_NE(absurd.find(std::string(key) + " = 5000000: must be <= 100000"), std::string::npos) << absurd;
    // A wait the watchdog would take for a deadlock.
    const std::string watchdog = error_of({std::string(key) + "=3000", "gpu.watchdog_cycles=2000"});
    EXPECT_NE(watchdog.find(std::string(key) + " = 3000: must be less than gpu.watchdog_cycles = 2000"),
              std::string::npos)
        << watchdog;
    for (const std::string& e : {negative, absurd, watchdog}) EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace lockstep
