// The determinism contract on whole runs with the full memory system (L1D,
// crossbars, L2, DRAM): ticking clusters in a different random order every
// cycle gives identical statistics — every counter of every kernel — on
// every real trace and every generated workload; so does turning the SM's
// cycle gating off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "configs/spec/gpu_config.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

// Everything but the "run" section, which holds wall-clock figures.
std::string deterministic_json(const SimulationReport& r) {
  const std::string j = stats_json(r);
  return j.substr(0, j.find("\"run\""));
}

std::string run_json(const std::filesystem::path& trace, const std::string& gpu, std::optional<uint64_t> shuffle,
                     const std::vector<std::string>& sets = {}, bool perfect_memory = false) {
  auto src = open_trace(trace, nullptr);
  const GpuSpec spec = load_gpu_spec(gpu, sets);
  RunOptions o;
  o.memory_model = perfect_memory ? "perfect" : "cycle";
  o.engine.shuffle_seed = shuffle;
  return deterministic_json(simulate(*src, spec, o));
}

TEST(Determinism, ShuffledClusterOrderGivesIdenticalStatsOnRealTraces) {
  for (const test::RealTrace& c : test::kRealTraces) {
    SCOPED_TRACE(c.trace);
    const auto path = test::shared_traces() / c.trace;
    const std::string natural = run_json(path, c.gpu, std::nullopt);
    EXPECT_NE(natural.find("smsp__inst_executed.sum"), std::string::npos);
    for (uint64_t seed : {1ull, 99ull}) EXPECT_EQ(run_json(path, c.gpu, seed), natural) << "seed " << seed;
    EXPECT_EQ(run_json(path, c.gpu, 5, {"sm.gating=false"}), natural) << "gating off";
    EXPECT_EQ(run_json(path, c.gpu, 3, {}, true), run_json(path, c.gpu, std::nullopt, {}, true)) << "perfect memory";
  }
}

TEST(Determinism, ShuffledClusterOrderGivesIdenticalStatsOnGeneratedWorkloads) {
  test::ScratchDir dir("det");
  for (const std::string& w : workload_names()) {
    SCOPED_TRACE(w);
    GenOptions g;
    g.workload = w;
    g.size = test::workload_size(60'000);
    g.sms = 80;
    generate_trace(g, dir / w);
    const std::string natural = run_json(dir / w, "QV100", std::nullopt);
    EXPECT_EQ(run_json(dir / w, "QV100", 7), natural);
    EXPECT_EQ(run_json(dir / w, "QV100", 8, {"sm.gating=false"}), natural) << "gating off";
  }
}

// Gating (an SM or a sub-core repeating its last evaluated cycle) depends on
// what each warp scheduler's order reads: every policy gives the counters of
// evaluating every cycle, on the workloads where warps wait most on memory.
TEST(Determinism, GatingOffGivesIdenticalStatsUnderEveryWarpScheduler) {
  test::ScratchDir dir("det-sched");
  for (const std::string w : {"graph", "stencil2d", "gemm"}) {
    GenOptions g;
    g.workload = w;
    g.size = test::workload_size(100'000);
    g.sms = 80;
    generate_trace(g, dir / w);
    for (const std::string scheduler : {"lrr", "gto", "two_level"}) {
      SCOPED_TRACE(w + " " + scheduler);
      const std::string gated = run_json(dir / w, "QV100", std::nullopt, {"sm.scheduler=" + scheduler});
      EXPECT_NE(gated.find("lockstep__stall.memory"), std::string::npos);
      EXPECT_EQ(run_json(dir / w, "QV100", std::nullopt, {"sm.scheduler=" + scheduler, "sm.gating=false"}), gated);
    }
  }
}

// The comparison is not vacuous: a real change in the model shows up in it.
TEST(Determinism, TheComparisonDetectsAChangedModel) {
  const auto path = test::shared_traces() / "vectoradd-sm80";
  const std::string base = run_json(path, "A100", std::nullopt);
  EXPECT_NE(run_json(path, "A100", std::nullopt, {"l2.latency=161"}), base);
  EXPECT_NE(run_json(path, "A100", std::nullopt, {"sm.perfect_memory_latency=21"}, true),
            run_json(path, "A100", std::nullopt, {}, true));
}

// The abstract model simulates the SMs of a kernel on any of oneTBB's
// threads: 1, 2 and 7 threads give identical statistics, with perfect memory
// and with the per-level latencies, on every real trace and generated
// workload; so does reading each kernel twice and timing it while reading.
SimulationReport abstract_run(const std::filesystem::path& trace, const std::string& gpu, uint32_t threads,
                              bool perfect, bool read_twice = false, const std::vector<std::string>& sets = {}) {
  auto src = open_trace(trace, nullptr);
  const GpuSpec spec = load_gpu_spec(gpu, sets);
  RunOptions o;
  o.model = "abstract";
  o.memory_model = perfect ? "perfect" : "cycle";
  o.engine.threads = threads;
  o.per_unit_stats = true;
  if (read_twice) {
    // Every kernel read twice, two blocks per SM at a time.
    o.abstract_read_twice_above = 0;
    o.abstract_read_ahead = 1;
  }
  return simulate(*src, spec, o);
}

std::string abstract_json(const std::filesystem::path& trace, const std::string& gpu, uint32_t threads, bool perfect,
                          bool read_twice = false, const std::vector<std::string>& sets = {}) {
  return deterministic_json(abstract_run(trace, gpu, threads, perfect, read_twice, sets));
}

// Generates `workload` at `size` warp instructions for 80 SMs into `dir`.
std::filesystem::path generated(const std::filesystem::path& dir, const std::string& workload, uint64_t size) {
  GenOptions g;
  g.workload = workload;
  g.size = size;
  g.sms = 80;
  generate_trace(g, dir);
  return dir;
}

// The traces the models' identity tests run: every sample trace on its
// architecture's config, then every generated workload (60 K warp
// instructions, into `dir`) on QV100.
std::vector<std::pair<std::filesystem::path, std::string>> identity_traces(const std::filesystem::path& dir) {
  std::vector<std::pair<std::filesystem::path, std::string>> traces;
  for (const test::RealTrace& c : test::kRealTraces) traces.emplace_back(test::shared_traces() / c.trace, c.gpu);
  for (const std::string& w : workload_names())
    traces.emplace_back(generated(dir / w, w, test::workload_size(60'000)), "QV100");
  return traces;
}

TEST(Determinism, AbstractModelGivesIdenticalStatsOnAnyThreadCount) {
  test::ScratchDir dir("det-abstract");
  const auto traces = identity_traces(dir.path());
  uint64_t kernels_read_twice = 0, steps = 0;
  for (const auto& [trace, gpu] : traces) {
    SCOPED_TRACE(trace.string());
    for (bool perfect : {true, false}) {
      const std::string one = abstract_json(trace, gpu, 1, perfect);
      EXPECT_NE(one.find("\"model\": \"abstract\""), std::string::npos);
      EXPECT_NE(one.find("smsp__inst_executed.sum"), std::string::npos);
      EXPECT_EQ(abstract_json(trace, gpu, 2, perfect), one) << "2 threads";
      EXPECT_EQ(abstract_json(trace, gpu, 7, perfect), one) << "7 threads";
      EXPECT_EQ(abstract_json(trace, gpu, 1, perfect, true), one) << "read twice";
      // Read twice on a GPU of 4 SMs: a kernel's second read comes in many
      // steps of two blocks per SM, and the SMs wait for blocks many times.
      const std::vector<std::string> four = {"gpu.sms=4"};
      const std::string small = abstract_json(trace, gpu, 1, perfect, false, four);
      const SimulationReport twice = abstract_run(trace, gpu, 1, perfect, true, four);
      EXPECT_EQ(deterministic_json(twice), small) << "read twice, 4 SMs";
      EXPECT_EQ(abstract_json(trace, gpu, 3, perfect, true, four), small) << "read twice, 4 SMs, 3 threads";
      kernels_read_twice += twice.kernels_read_twice;
      steps += twice.read_twice_steps;
    }
  }
  // Many kernels took several steps (two blocks per SM at most 8 at a time).
  EXPECT_GT(steps, 2 * kernels_read_twice);
}

// Equal, or where the two first differ (the stats JSONs are long).
testing::AssertionResult same_json(const std::string& expected, const std::string& actual) {
  if (expected == actual) return testing::AssertionSuccess();
  size_t at = 0;
  while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) ++at;
  const size_t from = at > 80 ? at - 80 : 0;
  return testing::AssertionFailure() << "first difference at byte " << at << ": expected ..."
                                     << expected.substr(from, 160) << "... got ..." << actual.substr(from, 160) << "...";
}

// The memory model: the same statistics on any thread count and whatever
// the steps each SM runs before the L2 takes their requests (a chunk of
// one step stops every SM after each memory instruction; a huge one runs
// each until it waits for a block), on every real trace and generated
// workload, and on a 4-SM GPU whose SMs wait for blocks many times.
std::string memory_json(const std::filesystem::path& trace, const std::string& gpu, uint32_t threads, uint64_t steps,
                        const std::vector<std::string>& sets = {}) {
  auto src = open_trace(trace, nullptr);
  const GpuSpec spec = load_gpu_spec(gpu, sets);
  RunOptions o;
  o.model = "memory";
  o.engine.threads = threads;
  o.per_unit_stats = true;
  o.memory_steps_per_chunk = steps;
  return deterministic_json(simulate(*src, spec, o));
}

TEST(Determinism, MemoryModelGivesIdenticalStatsOnAnyThreadCountAndChunkOfSteps) {
  test::ScratchDir dir("det-memory");
  auto traces = identity_traces(dir.path());
  // Several waves of blocks on 80 SMs: SMs wait for blocks while others
  // run on for many chunks.
  traces.emplace_back(generated(dir / "stencil2d-waves", "stencil2d", test::workload_size(1'000'000)), "QV100");
  for (const auto& [trace, gpu] : traces) {
    SCOPED_TRACE(trace.string());
    for (const std::vector<std::string>& sets : {std::vector<std::string>{}, std::vector<std::string>{"gpu.sms=4"}}) {
      const std::string one = memory_json(trace, gpu, 1, 0, sets);
      EXPECT_NE(one.find("\"model\": \"memory\""), std::string::npos);
      EXPECT_NE(one.find("lts__t_sectors_op_read.sum"), std::string::npos);
      const std::string where = sets.empty() ? "" : " (4 SMs)";
      EXPECT_TRUE(same_json(one, memory_json(trace, gpu, 3, 0, sets))) << "3 threads" << where;
      EXPECT_TRUE(same_json(one, memory_json(trace, gpu, 1, 1, sets))) << "chunks of 1 step" << where;
      EXPECT_TRUE(same_json(one, memory_json(trace, gpu, 2, 7, sets))) << "chunks of 7 steps, 2 threads" << where;
      EXPECT_TRUE(same_json(one, memory_json(trace, gpu, 1, uint64_t(1) << 40, sets))) << "one chunk" << where;
    }
  }
}

}  // namespace
}  // namespace lockstep
