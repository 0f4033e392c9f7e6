// The threaded engine's contract: every schedule, thread count (also more
// threads than cores) and partition of the clusters and memory-side units
// gives the statistics of the sequential run — every counter of every kernel
// — on every real trace and every generated workload, and on random GPU
// shapes and clock ratios; so does fast-forwarding over idle cycles. A
// deliberately unlatched coupling shows the comparison can fail.
//
// Threaded runs here turn the engine's adaptive serial fallback off (cycles
// with little work would otherwise run on the leader alone, and on these
// small traces nearly all of them do), and check that the team ran every
// simulated cycle; one test checks the fallback itself. The sweeps use 2
// threads and more: para1 and para2 on one thread take the seq path.
//
// EngineThreads.* is small enough for the ThreadSanitizer build.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>

#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "configs/spec/gpu_config.h"
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
  bool fast_forward = true;
  bool perfect_memory = false;
  SerialFallback fallback = SerialFallback::off();  // off: threaded runs simulate every cycle on the team
};

// Balanced runs reassign the work every kRebalancePeriod cycles (short, so
// that the small traces here reassign it many times).
constexpr uint32_t kRebalancePeriod = 64;

// Generates `workload` of `size` warp instructions for `sms` SMs at `path`.
void generate(const std::filesystem::path& path, const std::string& workload, uint64_t size, uint32_t sms) {
  GenOptions g;
  g.workload = workload;
  g.size = size;
  g.sms = sms;
  generate_trace(g, path);
}

SimulationReport run(const std::filesystem::path& trace, const GpuSpec& spec, const RunSetup& s) {
  auto src = open_trace(trace, nullptr);
  RunOptions o;
  o.engine.schedule = parse_schedule(s.schedule);
  o.engine.threads = s.threads;
  o.engine.partition = parse_partition(s.partition);
  o.engine.shuffle_seed = s.shuffle;
  o.tests.unlatched_coupling = s.coupling;
  o.engine.fast_forward = s.fast_forward;
  o.memory_model = s.perfect_memory ? "perfect" : "cycle";
  o.engine.serial_fallback = s.fallback;
  o.engine.rebalance_period = kRebalancePeriod;
  o.warn = nullptr;
  return simulate(*src, spec, o);
}

// Every core cycle of the run was simulated or skipped; without the serial
// fallback a threaded run simulated every one of them on the whole team.
void expect_simulated_on_the_team(const SimulationReport& r, const RunSetup& s) {
  const EngineReport& e = r.engine;
  EXPECT_EQ(e.parallel_cycles + e.serial_cycles + e.skipped_cycles, r.gpu_cycles);
  if (s.schedule == "seq" || s.threads < 2 || !s.fallback.is_off()) return;
  EXPECT_EQ(e.serial_cycles, 0u) << "cycles run by the leader alone";
  EXPECT_GT(e.parallel_cycles, 0u);
}

// Everything but the "run" section, which holds wall-clock figures.
std::string without_run(const std::string& json) { return json.substr(0, json.find("\"run\"")); }
std::string stats_of(const std::filesystem::path& trace, const GpuSpec& spec, const RunSetup& s) {
  const SimulationReport r = run(trace, spec, s);
  expect_simulated_on_the_team(r, s);
  return without_run(stats_json(r));
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
    expect_identical_everywhere(test::shared_traces() / c.trace, load_gpu_spec(c.gpu, {}), {2, 3, 4, 8});
  }
}

// Jumping over cycles in which nothing can change gives every counter of
// simulating them, with the memory system and with perfect memory; and the
// jumps do happen (launch gaps, long latencies), so the check is not vacuous.
TEST(Engine, FastForwardChangesNoCounter) {
  uint64_t skipped = 0;
  for (const test::RealTrace& c : test::kRealTraces)
    for (bool perfect : {false, true}) {
      SCOPED_TRACE(std::string(c.trace) + (perfect ? " perfect memory" : " memory system"));
      const GpuSpec spec = load_gpu_spec(c.gpu, {});
      RunSetup every_cycle, jumping;
      every_cycle.fast_forward = false;
      every_cycle.perfect_memory = jumping.perfect_memory = perfect;
      const SimulationReport slow = run(test::shared_traces() / c.trace, spec, every_cycle);
      const SimulationReport fast = run(test::shared_traces() / c.trace, spec, jumping);
      EXPECT_EQ(slow.engine.skipped_cycles, 0u);
      EXPECT_EQ(without_run(stats_json(fast)), without_run(stats_json(slow)));
      EXPECT_EQ(fast.gpu_cycles, slow.gpu_cycles);
      skipped += fast.engine.skipped_cycles;
      // Threaded and jumping.
      jumping.schedule = "para2";
      jumping.threads = 3;
      EXPECT_EQ(stats_of(test::shared_traces() / c.trace, spec, jumping), without_run(stats_json(slow)));
    }
  EXPECT_GT(skipped, 10'000u);
}

// Balanced reassigns clusters and memory-side units while running; para2
// gives the memory side threads / 4 threads of its own.
TEST(Engine, BalancedReassignsAndPara2SplitsTheMemorySide) {
  test::ScratchDir dir("engine-balanced");
  generate(dir / "t", "stencil2d", 30'000, 80);
  const GpuSpec spec = load_gpu_spec("QV100", {});
  const std::string seq = stats_of(dir / "t", spec, {});
  const RunSetup balanced_setup{"para1", 4, "balanced", std::nullopt, false};
  const SimulationReport balanced = run(dir / "t", spec, balanced_setup);
  expect_simulated_on_the_team(balanced, balanced_setup);
  EXPECT_GT(balanced.engine.rebalances, 10u);
  EXPECT_EQ(without_run(stats_json(balanced)), seq);
  const RunSetup split_setup{"para2", 8, "round-robin", std::nullopt, false};
  const SimulationReport split = run(dir / "t", spec, split_setup);
  expect_simulated_on_the_team(split, split_setup);
  EXPECT_EQ(split.engine.memory_threads, 2u);
  EXPECT_EQ(without_run(stats_json(split)), seq);
  const RunSetup sized_setup{"para2", 6, "balanced", std::nullopt, false};
  const SimulationReport sized = run(dir / "t", spec, sized_setup);
  expect_simulated_on_the_team(sized, sized_setup);
  EXPECT_GE(sized.engine.memory_threads, 1u);
  EXPECT_LE(sized.engine.memory_threads, 5u);
  EXPECT_EQ(without_run(stats_json(sized)), seq);
}

TEST(Engine, EverySchedulePartitionAndThreadCountMatchesSeqOnGeneratedWorkloads) {
  test::ScratchDir dir("engine");
  const GpuSpec spec = load_gpu_spec("QV100", {});
  for (const std::string& w : workload_names()) {
    SCOPED_TRACE(w);
    generate(dir / w, w, 30'000, 80);
    expect_identical_everywhere(dir / w, spec, {2, 3, 4, 8});
  }
}

// Random GPU shapes (SM and cluster counts), clock ratios, workloads and
// seeds; each compared with seq on a random schedule, thread count (2-6) and partition.
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
    const RunSetup s{schedules[rng() % 2], 2 + uint32_t(rng() % 5), partitions[rng() % 3], rng(), false};
    SCOPED_TRACE(g.workload + " seed " + std::to_string(g.seed) + " " + s.schedule + " " + std::to_string(s.threads) +
                 " " + s.partition + " sms " + std::to_string(per_cluster * clusters));
    EXPECT_EQ(stats_of(trace, spec, s), stats_of(trace, spec, {}));
  }
}

// The comparison is not vacuous: a component that reads another SM's state
// within the cycle (not through a latched port) makes results depend on the
// order in which SMs tick and on the threads, and the same comparisons catch
// it: shuffled seq against seq, and every threaded schedule and partition on
// 2-4 threads against seq. Without the coupling all of them agree. (para2 on
// 2 threads is left out of the coupled check: its one cluster thread ticks
// the clusters in seq's order, the memory-side thread takes at most a few
// from the back when it is done early, and the coupled result comes out as
// seq's.)
TEST(Engine, AnUnlatchedComponentBreaksTheIdentity) {
  test::ScratchDir dir("engine-unlatched");
  generate(dir / "t", "stencil2d", 20'000, 16);
  const GpuSpec spec = load_gpu_spec("QV100", {"gpu.sms=16"});
  for (bool coupling : {true, false}) {
    SCOPED_TRACE(coupling ? "coupled" : "latched only");
    RunSetup natural, shuffled;
    natural.coupling = shuffled.coupling = coupling;
    shuffled.shuffle = 3;
    const std::string seq = stats_of(dir / "t", spec, natural);
    const std::string shuffled_stats = stats_of(dir / "t", spec, shuffled);
    if (coupling) {
      EXPECT_NE(shuffled_stats, seq);
    } else {
      EXPECT_EQ(shuffled_stats, seq);
    }
    for (const char* schedule : {"para1", "para2"})
      for (uint32_t n : {2u, 3u, 4u})
        for (const char* partition : {"contiguous", "round-robin", "balanced"}) {
          SCOPED_TRACE(std::string(schedule) + " " + std::to_string(n) + " " + partition);
          const RunSetup threaded{schedule, n, partition, std::nullopt, coupling};
          const bool clusters_on_one_thread = threaded.schedule == "para2" && n == 2;
          const std::string stats = stats_of(dir / "t", spec, threaded);
          if (!coupling) {
            EXPECT_EQ(stats, seq);
          } else if (!clusters_on_one_thread) {
            EXPECT_NE(stats, seq);
          }
        }
  }
}

// The serial fallback hands cycles between the team and the leader (every
// share in turn) with the same results. Its thresholds are wall time; set
// so that every team cycle counts as small (the next runs on the leader) and
// every leader cycle as large (the next runs on the team), the two kinds
// alternate from the first simulated cycle, which runs on the team, whatever
// the machine's speed (also under ThreadSanitizer).
TEST(EngineThreads, TheSerialFallbackAlternatesTeamAndLeaderCycles) {
  test::ScratchDir dir("engine-fallback");
  generate(dir / "t", "reduce", 6'000, 8);
  const GpuSpec spec = load_gpu_spec("QV100", {"gpu.sms=8"});
  const std::string seq = stats_of(dir / "t", spec, {});
  for (const char* schedule : {"para1", "para2"}) {
    SCOPED_TRACE(schedule);
    RunSetup alternating{schedule, 3, "round-robin", std::nullopt, false};
    alternating.fallback.serial_below = std::chrono::hours(1);
    alternating.fallback.parallel_above = std::chrono::nanoseconds(0);
    const SimulationReport r = run(dir / "t", spec, alternating);
    expect_simulated_on_the_team(r, alternating);
    const uint64_t simulated = r.engine.parallel_cycles + r.engine.serial_cycles;
    EXPECT_GT(simulated, 100u);
    EXPECT_EQ(r.engine.parallel_cycles, (simulated + 1) / 2);
    EXPECT_EQ(r.engine.serial_cycles, simulated / 2);
    EXPECT_EQ(without_run(stats_json(r)), seq);
  }
}

// Small enough for ThreadSanitizer: both threaded schedules, more threads than
// cores, every simulated cycle on the team (stats_of checks it).
TEST(EngineThreads, ThreadedSchedulesMatchSeqOnASmallTrace) {
  test::ScratchDir dir("engine-tsan");
  generate(dir / "t", "reduce", 6'000, 8);
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
