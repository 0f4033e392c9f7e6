// The threaded engine's contract: every schedule, thread count (also more
// threads than cores) and cluster partition gives the statistics of the
// sequential run — every counter of every kernel — on every real trace and
// every generated workload, and on random GPU shapes and clock ratios. A
// deliberately unlatched coupling shows the comparison can fail.
//
// EngineThreads.* is small enough for the ThreadSanitizer build.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "parallel/config/gpu_config.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

struct RunSetup {
  std::string schedule = "seq";
  uint32_t threads = 1;
  std::string partition = "contiguous";
  std::optional<uint64_t> shuffle;
  bool coupling = false;
};

// Everything but the "run" section, which holds wall-clock figures.
std::string stats_of(const std::filesystem::path& trace, const GpuSpec& spec, const RunSetup& s) {
  auto src = open_trace(trace, nullptr);
  SimulationOptions o;
  o.schedule = s.schedule;
  o.threads = s.threads;
  o.partition = s.partition;
  o.shuffle_seed = s.shuffle;
  o.unlatched_coupling_for_tests = s.coupling;
  o.warn = nullptr;
  const std::string j = stats_json(simulate(*src, spec, o));
  return j.substr(0, j.find("\"run\""));
}

// Every schedule x threads x partition against seq.
void expect_identical_everywhere(const std::filesystem::path& trace, const GpuSpec& spec,
                                 std::initializer_list<uint32_t> thread_counts) {
  const std::string seq = stats_of(trace, spec, {});
  ASSERT_NE(seq.find("smsp__inst_executed.sum"), std::string::npos);
  for (const char* schedule : {"para1", "para2"})
    for (uint32_t n : thread_counts)
      for (const char* partition : {"contiguous", "round-robin", "balanced"}) {
        SCOPED_TRACE(std::string(schedule) + " " + std::to_string(n) + " " + partition);
        EXPECT_EQ(stats_of(trace, spec, {schedule, n, partition, std::nullopt, false}), seq);
      }
}

TEST(Engine, EverySchedulePartitionAndThreadCountMatchesSeqOnRealTraces) {
  for (const test::RealTrace& c : test::kRealTraces) {
    SCOPED_TRACE(c.trace);
    expect_identical_everywhere(test::shared_traces() / c.trace, load_gpu_spec(c.gpu, {}), {1, 2, 3, 4, 8});
  }
}

TEST(Engine, EverySchedulePartitionAndThreadCountMatchesSeqOnGeneratedWorkloads) {
  test::ScratchDir dir("engine");
  const GpuSpec spec = load_gpu_spec("QV100", {});
  for (const std::string& w : workload_names()) {
    SCOPED_TRACE(w);
    GenOptions g;
    g.workload = w;
    g.size = 30'000;
    g.sms = 80;
    generate_trace(g, dir / w);
    expect_identical_everywhere(dir / w, spec, {1, 2, 3, 4, 8});
  }
}

// Random GPU shapes (SM and cluster counts), clock ratios, workloads and
// seeds; each compared with seq on a random schedule, thread count and partition.
TEST(Engine, RandomConfigsAndSeedsMatchSeq) {
  test::ScratchDir dir("engine-prop");
  std::mt19937_64 rng(20261122);
  const std::vector<std::string> workloads = workload_names();
  const char* schedules[] = {"para1", "para2"};
  const char* partitions[] = {"contiguous", "round-robin", "balanced"};
  for (int i = 0; i < 12; ++i) {
    const uint32_t per_cluster = 1 + uint32_t(rng() % 3);
    const uint32_t clusters = 2 + uint32_t(rng() % 12);
    const double mhz[] = {700, 850, 1000, 1132, 1410, 1597};
    auto pick = [&] { return mhz[rng() % 6]; };
    const std::vector<std::string> sets = {
        "gpu.sms=" + std::to_string(per_cluster * clusters), "gpu.sms_per_cluster=" + std::to_string(per_cluster),
        "clock.core_mhz=" + std::to_string(pick()), "clock.icnt_mhz=" + std::to_string(pick()),
        "clock.l2_mhz=" + std::to_string(pick()), "clock.dram_mhz=" + std::to_string(pick())};
    GenOptions g;
    g.workload = workloads[rng() % workloads.size()];
    g.size = 8'000 + rng() % 12'000;
    g.sms = per_cluster * clusters;
    g.seed = rng();
    const std::filesystem::path trace = dir / ("t" + std::to_string(i));
    generate_trace(g, trace);
    const GpuSpec spec = load_gpu_spec("QV100", sets);
    const RunSetup s{schedules[rng() % 2], 1 + uint32_t(rng() % 6), partitions[rng() % 3], rng(), false};
    SCOPED_TRACE(g.workload + " seed " + std::to_string(g.seed) + " " + s.schedule + " " + std::to_string(s.threads) +
                 " " + s.partition + " sms " + std::to_string(per_cluster * clusters));
    EXPECT_EQ(stats_of(trace, spec, s), stats_of(trace, spec, {}));
  }
}

// The comparison is not vacuous: a component that reads another SM's state
// within the cycle (not through a latched port) makes results depend on the
// order in which SMs tick, and the same comparison catches it.
TEST(Engine, AnUnlatchedComponentBreaksTheIdentity) {
  test::ScratchDir dir("engine-unlatched");
  GenOptions g;
  g.workload = "stencil2d";
  g.size = 20'000;
  g.sms = 16;
  generate_trace(g, dir / "t");
  const GpuSpec spec = load_gpu_spec("QV100", {"gpu.sms=16"});
  RunSetup natural, shuffled;
  natural.coupling = shuffled.coupling = true;
  shuffled.shuffle = 3;
  EXPECT_NE(stats_of(dir / "t", spec, natural), stats_of(dir / "t", spec, shuffled));
  natural.coupling = shuffled.coupling = false;
  EXPECT_EQ(stats_of(dir / "t", spec, natural), stats_of(dir / "t", spec, shuffled));
}

// Small enough for ThreadSanitizer: both threaded schedules, more threads than cores.
TEST(EngineThreads, ThreadedSchedulesMatchSeqOnASmallTrace) {
  test::ScratchDir dir("engine-tsan");
  GenOptions g;
  g.workload = "reduce";
  g.size = 6'000;
  g.sms = 8;
  generate_trace(g, dir / "t");
  const GpuSpec spec = load_gpu_spec("QV100", {"gpu.sms=8"});
  const std::string seq = stats_of(dir / "t", spec, {});
  for (const char* schedule : {"para1", "para2"})
    for (uint32_t n : {2u, 3u, 5u}) {
      SCOPED_TRACE(std::string(schedule) + " " + std::to_string(n));
      EXPECT_EQ(stats_of(dir / "t", spec, {schedule, n, n == 3 ? "balanced" : "round-robin", std::nullopt, false}), seq);
    }
}

}  // namespace
}  // namespace lockstep
