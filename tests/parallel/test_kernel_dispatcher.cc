// The dispatcher alone, on real SMs that are ticked by hand and views the test
// sets: blocks go round robin from the SM after the last that received one,
// one per SM per cycle; a kernel on the CUDA stream of a running one waits
// for its end, one on another stream launches kernel_launch_latency cycles
// after the running kernel handed out its last block.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/kernel_program.h"
#include "core/sm.h"
#include "configs/spec/config_dir.h"
#include "frontend/isa/isa_def.h"
#include "frontend/text/text_trace_source.h"
#include "memsys/fixed_latency_memory.h"
#include "configs/spec/gpu_config.h"
#include "parallel/kernel_dispatcher.h"
#include "tests/parallel/chain_kernel.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

// The text trace of a directory, recording which kernels the dispatcher
// opens ahead (a text source has no decoding thread: the blocks come from
// open_blocks as when a source cannot open ahead, only the call is recorded).
class AheadRecordingSource : public TextTraceSource {
 public:
  using TextTraceSource::TextTraceSource;
  std::unique_ptr<BlockCursor> open_blocks_ahead(uint32_t kernel, uint32_t first_wave, BlockParts) override {
    opened_ahead.push_back({kernel, first_wave});
    return open_blocks(kernel);
  }
  std::vector<std::pair<uint32_t, uint32_t>> opened_ahead;  // kernel, first wave
};

// Four SMs with perfect memory, the trace of `dir`, one job per kernel; no
// kernel-level costs (those are tests/parallel/test_launch_costs.cc's).
struct DispatchBench {
  GpuSpec spec;
  IsaDef isa = IsaDef::for_binary_version(70, default_config_dir());
  std::vector<std::unique_ptr<SmModel>> sms;
  std::vector<SmView> views;
  FixedLatencyMemory memory;
  AheadRecordingSource trace;
  std::vector<std::unique_ptr<KernelProgram>> programs;
  std::vector<KernelJob> jobs;
  std::unique_ptr<KernelDispatcher> dispatcher;

  explicit DispatchBench(const std::filesystem::path& dir)
      : spec(load_gpu_spec("QV100", {"gpu.sms=4", "gpu.sms_per_cluster=1", "gpu.concurrent_kernels=true",
                                     "gpu.kernel_launch_latency=10", "launch.kernel_start_cycles=0",
                                     "launch.block_interval_cycles=0", "launch.sm_block_interval_cycles=0",
                                     "launch.kernel_drain_cycles=0"})),
        trace(dir, nullptr) {
    for (uint32_t i = 0; i < spec.sms; ++i) sms.push_back(std::make_unique<Sm>(i, spec.sm));
    views.assign(spec.sms, SmView{});
    for (uint32_t k = 0; k < trace.manifest().kernels.size(); ++k) {
      programs.push_back(std::make_unique<KernelProgram>(
          spec.sm,
          [this](const std::string& opcode, const std::string& where) {
            const IsaDef::Entry e = isa.resolve(opcode, where);
            return std::make_pair(e.unit, e.kind);
          },
          "kernel " + std::to_string(k)));
      jobs.push_back(KernelJob{k, programs.back().get(), {}});
    }
    dispatcher = std::make_unique<KernelDispatcher>(spec, sms, views, memory, trace, jobs, /*memcpy_warms_l2=*/true,
                                                    CacheControl::kNone, /*per_unit_stats=*/false,
                                                    /*drop_retirements=*/false);
  }
  // Which SMs hold an offered block; then they take it in (a tick) and the views follow.
  std::vector<bool> offered_then_tick(uint64_t now) {
    std::vector<bool> out;
    for (uint32_t s = 0; s < sms.size(); ++s) {
      out.push_back(sms[s]->has_offered_block());
      sms[s]->tick(now);
      views[s].residency = sms[s]->residency();
    }
    return out;
  }
};

TEST(DispatcherRules, RoundRobinFromTheSmAfterTheLastThatReceivedABlock) {
  test::ScratchDir dir("dispatch-rr");
  test::write_chain_kernel(dir / "kernel-1.traceg", 1, 0, 6);
  std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\n";
  DispatchBench b(dir.path());
  // Cycle 0: SM 3 holds a block of another kernel, so SMs 0, 1, 2 get one each.
  b.views[3].residency = SmModel::Residency{1, 1, 77};
  b.dispatcher->launch_and_dispatch(0, true);
  EXPECT_EQ(b.offered_then_tick(0), (std::vector<bool>{true, true, true, false}));
  // Cycle 1: every SM has room; the three blocks left go to SMs 3, 0 and 1.
  b.dispatcher->launch_and_dispatch(1, true);
  EXPECT_EQ(b.offered_then_tick(1), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(b.dispatcher->blocks_moved(), 6u);
  // Nothing waits any more.
  b.dispatcher->launch_and_dispatch(2, true);
  EXPECT_EQ(b.offered_then_tick(2), (std::vector<bool>{false, false, false, false}));
}

TEST(DispatcherRules, OneStreamRunsInOrderOtherStreamsOverlap) {
  for (bool same_stream : {false, true}) {
    SCOPED_TRACE(same_stream ? "one stream" : "two streams");
    test::ScratchDir dir("dispatch-stream");
    test::write_chain_kernel(dir / "kernel-1.traceg", 1, 0);
    test::write_chain_kernel(dir / "kernel-2.traceg", 2, same_stream ? 0 : 1);
    std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\nkernel-2.traceg\n";
    DispatchBench b(dir.path());
    // Kernel 1 launches at once and hands out its only block in cycle 0; its
    // block never retires here (the views say nothing).
    for (uint64_t now = 0; now < 30; ++now) b.dispatcher->launch_and_dispatch(now, false);
    const std::vector<KernelResult>& r = b.dispatcher->results();
    ASSERT_EQ(r.size(), same_stream ? 1u : 2u);
    EXPECT_EQ(r[0].start_cycle, 0u);
    if (!same_stream) {
      EXPECT_EQ(r[1].start_cycle, 11u);  // could start in cycle 1 (kernel 1 had no block left), + latency
      continue;
    }
    // Kernel 1's block retires in cycle 30 (SM 0's view says so): kernel 2
    // may start in cycle 31 and launches in cycle 41.
    b.views[0] = SmView{SmModel::Residency{0, 0, 0}, 1};
    b.dispatcher->retire(30, true);
    EXPECT_TRUE(r[0].complete);
    EXPECT_EQ(r[0].cycles, 31u);
    b.views[0].retired = 0;
    for (uint64_t now = 31; now < 60; ++now) b.dispatcher->launch_and_dispatch(now, true);
    ASSERT_EQ(b.dispatcher->results().size(), 2u);
    EXPECT_EQ(b.dispatcher->results()[1].start_cycle, 41u);
  }
}

TEST(DispatcherRules, NextKernelOpenedAheadOnceTheKernelBeforeHandedOutItsLastBlock) {
  // Kernel 1 has 8 one-warp blocks: 4 go out in cycle 0 (one per SM), the
  // other 4 in cycle 1. Kernel 2's blocks are opened ahead only then: opened
  // at kernel 1's launch, its first wave would wait decoded beside every
  // block of kernel 1 the SMs hold, however long the kernel runs.
  test::ScratchDir dir("dispatch-ahead");
  test::write_chain_kernel(dir / "kernel-1.traceg", 1, 0, 8, 4);
  test::write_chain_kernel(dir / "kernel-2.traceg", 2, 0, 3, 4);
  std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\nkernel-2.traceg\n";
  DispatchBench b(dir.path());
  const uint32_t wave = 4 * b.spec.sm.max_blocks;  // one-warp blocks of 16 registers: the block limit
  b.dispatcher->launch_and_dispatch(0, false);
  // Kernel 1 itself is opened ahead at its launch (it is needed at once).
  ASSERT_EQ(b.trace.opened_ahead.size(), 1u);
  EXPECT_EQ(b.trace.opened_ahead[0], std::make_pair(0u, wave));
  EXPECT_EQ(b.offered_then_tick(0), std::vector<bool>(4, true));
  b.dispatcher->launch_and_dispatch(1, true);
  EXPECT_EQ(b.offered_then_tick(1), std::vector<bool>(4, true));
  ASSERT_EQ(b.trace.opened_ahead.size(), 2u);
  EXPECT_EQ(b.trace.opened_ahead[1], std::make_pair(1u, wave));
  // Kernel 2 is on kernel 1's stream: it waits for kernel 1's end and takes the cursor opened ahead.
  EXPECT_EQ(b.dispatcher->results().size(), 1u);
}

}  // namespace
}  // namespace lockstep
