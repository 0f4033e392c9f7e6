// Kernels on different CUDA streams overlap when the config allows it; kernels
// on one stream never do. Blocks that wait for an SM to empty go there in the
// cycles right after it does; every retirement is counted. A kernel that makes
// no progress is stopped by the watchdog, whether its cycles are simulated or
// skipped.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "frontend/text/text_trace_source.h"
#include "configs/spec/gpu_config.h"
#include "parallel/simulation.h"
#include "tests/parallel/chain_kernel.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

SimulationReport run(const std::filesystem::path& dir, bool concurrent) {
  TextTraceSource src(dir, nullptr);
  const GpuSpec spec = load_gpu_spec("QV100", {std::string("gpu.concurrent_kernels=") + (concurrent ? "true" : "false"),
                                               "gpu.kernel_launch_latency=10"});
  RunOptions o;
  o.memory_model = "perfect";
  return simulate(src, spec, o);
}

TEST(KernelOverlap, DifferentStreamsOverlapOnlyWhenAllowed) {
  for (bool same_stream : {false, true}) {
    SCOPED_TRACE(same_stream ? "same stream" : "two streams");
    test::ScratchDir dir("overlap");
    test::write_chain_kernel(dir / "kernel-1.traceg", 1, 0);
    test::write_chain_kernel(dir / "kernel-2.traceg", 2, same_stream ? 0 : 1);
    std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\nkernel-2.traceg\n";
    const SimulationReport serial = run(dir.path(), false);
    const SimulationReport overlap = run(dir.path(), true);
    ASSERT_EQ(serial.kernels.size(), 2u);
    ASSERT_EQ(overlap.kernels.size(), 2u);
    // Each kernel alone takes the same time either way.
    EXPECT_EQ(serial.kernels[0].cycles, overlap.kernels[0].cycles);
    EXPECT_EQ(serial.kernels[1].stats.warp_insts, overlap.kernels[1].stats.warp_insts);
    const uint64_t one = serial.kernels[0].cycles;
    EXPECT_GE(serial.gpu_cycles, 2 * one + 10);
    if (same_stream)
      EXPECT_EQ(overlap.gpu_cycles, serial.gpu_cycles);
    else
      EXPECT_LT(overlap.gpu_cycles, one + 10 + one / 2);  // the second started 10 cycles after the first
  }
}

// One SM that holds one block at a time: every SM is empty when a block
// retires while the next waits. That is no error; each next block starts in
// the cycles right after, the same gap each time, on every schedule.
TEST(KernelDispatch, BlocksWaitingForTheOnlySmRunOneAfterAnother) {
  const GpuSpec spec = load_gpu_spec("QV100", {"gpu.sms=1", "sm.max_blocks=1"});
  std::vector<uint64_t> cycles;
  for (uint32_t blocks : {1u, 2u, 3u}) {
    test::ScratchDir dir("dispatch");
    test::write_chain_kernel(dir / "kernel-1.traceg", 1, 0, blocks, 20);
    std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\n";
    SimulationReport seq;
    for (const char* schedule : {"seq", "para1"}) {
      TextTraceSource src(dir.path(), nullptr);
      RunOptions o;
      o.memory_model = "perfect";
      o.engine.schedule = parse_schedule(schedule);
      o.engine.threads = o.engine.schedule == Schedule::kSeq ? 1 : 2;
      o.engine.serial_fallback = SerialFallback::off();  // para1 runs every simulated cycle on both threads
      const SimulationReport r = simulate(src, spec, o);
      ASSERT_EQ(r.kernels.size(), 1u);
      EXPECT_EQ(r.kernels[0].stats.blocks_launched, blocks) << schedule;
      if (o.engine.threads == 1) {
        seq = r;
      } else {
        EXPECT_EQ(r.gpu_cycles, seq.gpu_cycles) << blocks << " blocks";
        EXPECT_EQ(r.engine.serial_cycles, 0u);
        EXPECT_GT(r.engine.parallel_cycles, 0u);
      }
    }
    cycles.push_back(seq.gpu_cycles);
  }
  const uint64_t gap = cycles[1] - cycles[0];
  EXPECT_LT(gap, cycles[0]);  // the second block finds the instructions in the I-cache
  EXPECT_EQ(cycles[2] - cycles[1], gap);
}

// Options of the runs below: perfect memory, seq on one thread or para1 on
// two with every simulated cycle on the team, and a cycle budget that only
// keeps a failure from hanging the test.
RunOptions dispatch_test_options(const std::string& schedule, bool fast_forward, uint64_t budget) {
  RunOptions o;
  o.memory_model = "perfect";
  o.engine.schedule = parse_schedule(schedule);
  o.engine.threads = o.engine.schedule == Schedule::kSeq ? 1 : 2;
  if (o.engine.threads > 1) o.engine.serial_fallback = SerialFallback::off();
  o.engine.fast_forward = fast_forward;
  o.max_cycles = budget;
  return o;
}

// Two block slots on one SM: the first wave arrives one block per cycle, so
// the blocks of equal length retire one per cycle, and from then on the SM
// takes the next block in the same cycle as one retires (its residency is
// unchanged). Each retirement must still be counted: the kernel ends once
// every block has retired (a lost retirement left it running forever). The
// budget only keeps a failure from hanging the test.
TEST(KernelDispatch, ABlockRetiringAsTheNextArrivesIsCounted) {
  const GpuSpec spec = load_gpu_spec("QV100", {"gpu.sms=1", "sm.max_blocks=2"});
  test::ScratchDir dir("retire");
  constexpr uint32_t kBlocks = 6;
  test::write_chain_kernel(dir / "kernel-1.traceg", 1, 0, kBlocks, 20);
  std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\n";
  uint64_t seq_cycles = 0;
  for (const char* schedule : {"seq", "para1"})
    for (bool fast_forward : {true, false}) {
      SCOPED_TRACE(std::string(schedule) + (fast_forward ? " fast-forward" : " every cycle"));
      TextTraceSource src(dir.path(), nullptr);
      const RunOptions o = dispatch_test_options(schedule, fast_forward, 200000);
      const SimulationReport r = simulate(src, spec, o);
      ASSERT_EQ(r.kernels.size(), 1u);
      EXPECT_FALSE(r.truncated);
      EXPECT_EQ(r.kernels[0].stats.blocks_launched, kBlocks);
      EXPECT_EQ(r.kernels[0].stats.warp_insts, kBlocks * 21u);  // 20 FFMAs and the EXIT per block
      // Two blocks at a time: well under the time of six one after another.
      EXPECT_LT(r.gpu_cycles, 10000u);
      if (!seq_cycles) seq_cycles = r.gpu_cycles;
      EXPECT_EQ(r.gpu_cycles, seq_cycles);
    }
}

// Every block ends, but the leader never hears of it (a test hook): the
// kernel can never finish and no warp is resident. The watchdog counts the
// cycles without progress, simulated or jumped over, and stops the run with
// one line; the budget only keeps a failure from hanging the test.
TEST(Watchdog, StopsAKernelThatCanNeverFinish) {
  const GpuSpec spec = load_gpu_spec("QV100", {"gpu.sms=2", "gpu.watchdog_cycles=20000"});
  test::ScratchDir dir("watchdog");
  test::write_chain_kernel(dir / "kernel-1.traceg", 1, 0, 3, 20);
  std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\n";
  for (const char* schedule : {"seq", "para1"})
    for (bool fast_forward : {true, false}) {
      SCOPED_TRACE(std::string(schedule) + (fast_forward ? " fast-forward" : " every cycle"));
      TextTraceSource src(dir.path(), nullptr);
      RunOptions o = dispatch_test_options(schedule, fast_forward, 2000000);
      o.tests.drop_retirements = true;
      try {
        const SimulationReport r = simulate(src, spec, o);
        ADD_FAILURE() << "no watchdog error; the run ended after " << r.gpu_cycles << " cycles";
      } catch (const SimulationError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        EXPECT_EQ(what.rfind("no progress for ", 0), 0u) << what;
        EXPECT_NE(what.find("gpu.watchdog_cycles"), std::string::npos) << what;
        EXPECT_NE(what.find("kernel 1 has 3 blocks dispatched, 0 retired, none waiting; no warp is resident"),
                  std::string::npos)
            << what;
        // Stopped at the first look (every 1024 cycles) past 20000 cycles without progress.
        const uint64_t idle = std::stoull(what.substr(16));
        EXPECT_GT(idle, 20000u);
        EXPECT_LE(idle, 20000u + 1024u);
      }
    }
}

}  // namespace
}  // namespace lockstep
