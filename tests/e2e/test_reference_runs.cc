// Reference runs: every counter of a fixed set of runs (the sample traces and
// generated workloads on every shipped GPU, full and perfect memory) against
// the statistics saved in tests/reference/runs/, sequentially and threaded.
// A change that is not meant to change results (a refactor, a speed-up)
// must leave every one of them identical; a change that is meant to change
// results updates the files in the same commit and says so:
//   LOCKSTEP_UPDATE_REFERENCE=1 build/tests/lockstep_tests --gtest_filter='ReferenceRuns.*'
// A missing reference file is a failure, never a skip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
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

struct ReferenceRun {
  std::string name;    // file name under tests/reference/runs/ (without .json)
  std::string trace;   // a sample trace under ../shared/traces, or "gen:WORKLOAD"
  std::string gpu;
  bool perfect_memory = false;
  std::vector<std::string> sets;  // --set overrides
};

// The sample traces on their own GPU and on others of a generation that runs
// them (sm_80 traces need a uniform unit: Turing and later; sm_70 traces need
// an INT unit: Volta and later); every generated workload on QV100 and one
// each on every other shipped GPU; perfect memory on two of them; the
// sm_90 FFMA trace on Volta and Ampere too (a second wave of blocks).
std::vector<ReferenceRun> reference_runs() {
  std::vector<ReferenceRun> runs;
  auto add = [&runs](std::string name, std::string trace, std::string gpu, bool perfect_memory = false,
                     std::vector<std::string> sets = {}) {
    runs.push_back(ReferenceRun{std::move(name), std::move(trace), std::move(gpu), perfect_memory, std::move(sets)});
  };
  const std::vector<std::pair<std::string, std::vector<std::string>>> real = {
      {"vectoradd-sm80", {"A100", "RTX2060", "RTX3070", "H100"}},
      {"bfs-rodinia-sm80", {"A100", "H100"}},
      {"matrixmul-sm61", {"GTX1080", "QV100", "A100"}},
      {"flashinfer-gemm-sm80/traces", {"A100", "H100"}},
      {"lud-kernel8-sm70", {"QV100", "A100", "RTX2060"}},
      {"ffma-4096-16-h100", {"H100", "A100"}},
  };
  for (const auto& [trace, gpus] : real)
    for (const std::string& gpu : gpus)
      add(trace.substr(0, trace.find('/')) + "-" + gpu, trace, gpu);
  for (const std::string& w : workload_names()) add("gen-" + w + "-QV100", "gen:" + w, "QV100");
  for (const auto& [w, gpu] : std::vector<std::pair<std::string, std::string>>{
           {"gemm", "A100"}, {"graph", "H100"}, {"stencil2d", "RTX2060"}, {"reduce", "RTX3070"}})
    add("gen-" + w + "-" + gpu, "gen:" + w, gpu);
  add("gen-vecadd-QV100-perfect", "gen:vecadd", "QV100", true);
  // An sm_90 trace on Volta with the uniform unit declared; two waves of blocks.
  add("ffma-4096-16-h100-QV100-uniform", "ffma-4096-16-h100", "QV100", false,
      {"sm.units=SP,INT,DP,SFU,TENSOR,BRANCH,TEX,UNIFORM"});
  add("lud-kernel8-sm70-QV100-perfect", "lud-kernel8-sm70", "QV100", true);
  return runs;
}

// Everything the run depends on only through the model: the statistics
// without the "run" section (wall-clock figures, threads, schedule).
nlohmann::json deterministic_stats(const SimulationReport& r) {
  nlohmann::json j = nlohmann::json::parse(stats_json(r));
  j.erase("run");
  j.erase("producer");  // what produced the file (paths, command line), not what was simulated
  return j;
}

// "kernel 3 (name) counter: reference A, now B" for the first differences.
std::vector<std::string> differences(const nlohmann::json& reference, const nlohmann::json& now) {
  std::vector<std::string> out;
  auto compare_object = [&](const std::string& where, const nlohmann::json& a, const nlohmann::json& b) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) out.push_back(where + it.key() + ": missing now");
      else if (b[it.key()] != it.value())
        out.push_back(where + it.key() + ": reference " + it.value().dump() + ", now " + b[it.key()].dump());
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) out.push_back(where + it.key() + ": new, " + it.value().dump());
  };
  for (const char* key : {"gpu", "total"}) {
    if (reference.value(key, nlohmann::json()) == now.value(key, nlohmann::json())) continue;
    if (reference.contains(key) && now.contains(key) && reference[key].is_object() && now[key].is_object())
      compare_object(std::string(key) + " ", reference[key], now[key]);
    else
      out.push_back(std::string(key) + " differs");
  }
  const nlohmann::json& ka = reference.at("kernels");
  const nlohmann::json& kb = now.at("kernels");
  if (ka.size() != kb.size())
    out.push_back("kernels: reference " + std::to_string(ka.size()) + ", now " + std::to_string(kb.size()));
  for (size_t i = 0; i < std::min(ka.size(), kb.size()); ++i) {
    const std::string where = "kernel " + ka[i].value("id", nlohmann::json()).dump() + " ";
    nlohmann::json a = ka[i], b = kb[i];
    const nlohmann::json sa = a.value("stats", nlohmann::json::object()), sb = b.value("stats", nlohmann::json::object());
    a.erase("stats");
    b.erase("stats");
    compare_object(where, a, b);
    compare_object(where, sa, sb);
  }
  // Keys outside gpu/kernels/total (e.g. a future section) must agree too.
  for (auto it = reference.begin(); it != reference.end(); ++it)
    if (it.key() != "gpu" && it.key() != "kernels" && it.key() != "total" &&
        now.value(it.key(), nlohmann::json()) != it.value())
      out.push_back(it.key() + " differs");
  for (auto it = now.begin(); it != now.end(); ++it)
    if (!reference.contains(it.key())) out.push_back(it.key() + ": new section");
  return out;
}

std::filesystem::path reference_file(const ReferenceRun& run) {
  return std::filesystem::path(LOCKSTEP_SOURCE_DIR) / "tests" / "reference" / "runs" / (run.name + ".json");
}

class ReferenceRuns : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { generated_ = new test::ScratchDir("reference"); }
  static void TearDownTestSuite() {
    delete generated_;
    generated_ = nullptr;
  }
  // The trace of a run: a sample trace, or a workload generated once per suite
  // (fixed seed and size, so the same trace every time).
  static std::filesystem::path trace_of(const ReferenceRun& run) {
    if (run.trace.rfind("gen:", 0) != 0) return test::shared_traces() / run.trace;
    const std::string workload = run.trace.substr(4);
    const std::filesystem::path dir = *generated_ / workload;
    if (!std::filesystem::exists(dir)) {
      GenOptions g;
      g.workload = workload;
      g.size = 30'000;
      g.seed = 1;
      generate_trace(g, dir);
    }
    return dir;
  }
  static nlohmann::json simulate_run(const ReferenceRun& run, const std::string& schedule, uint32_t threads) {
    auto src = open_trace(trace_of(run), nullptr);
    RunOptions o;
    o.memory_model = run.perfect_memory ? "perfect" : "cycle";
    o.engine.schedule = parse_schedule(schedule);
    o.engine.threads = threads;
    o.engine.partition = threads > 1 ? Partition::kBalanced : Partition::kContiguous;
    if (threads > 1) o.engine.serial_fallback = SerialFallback::off();  // every simulated cycle on the team
    o.warn = nullptr;
    const SimulationReport report = simulate(*src, load_gpu_spec(run.gpu, run.sets), o);
    if (threads > 1) {
      EXPECT_EQ(report.engine.serial_cycles, 0u) << schedule << " on " << threads << " threads";
      EXPECT_GT(report.engine.parallel_cycles, 0u) << schedule << " on " << threads << " threads";
    }
    return deterministic_stats(report);
  }
  static test::ScratchDir* generated_;
};
test::ScratchDir* ReferenceRuns::generated_ = nullptr;

bool updating() {
  const char* v = std::getenv("LOCKSTEP_UPDATE_REFERENCE");
  return v && *v && std::string(v) != "0";
}

void expect_same(const nlohmann::json& reference, const nlohmann::json& now, const std::string& what) {
  const std::vector<std::string> diffs = differences(reference, now);
  std::ostringstream shown;
  for (size_t i = 0; i < diffs.size() && i < 12; ++i) shown << "\n  " << diffs[i];
  if (diffs.size() > 12) shown << "\n  ... " << diffs.size() - 12 << " more";
  EXPECT_TRUE(diffs.empty()) << what << ": " << diffs.size() << " differences" << shown.str();
}

TEST_F(ReferenceRuns, EveryCounterMatchesTheSavedStatisticsSequentialAndThreaded) {
  for (const ReferenceRun& run : reference_runs()) {
    SCOPED_TRACE(run.name);
    const nlohmann::json seq = simulate_run(run, "seq", 1);
    const std::filesystem::path file = reference_file(run);
    if (updating()) {
      std::filesystem::create_directories(file.parent_path());
      std::ofstream(file) << seq.dump(1) << "\n";
    }
    std::ifstream in(file);
    ASSERT_TRUE(in.good()) << "no reference statistics at " << file
                           << " (LOCKSTEP_UPDATE_REFERENCE=1 writes them; see the top of this file)";
    const nlohmann::json reference = nlohmann::json::parse(in);
    expect_same(reference, seq, "seq");
    expect_same(reference, simulate_run(run, "para1", 2), "para1, 2 threads");
    expect_same(reference, simulate_run(run, "para2", 3), "para2, 3 threads");
  }
}

// With the four kernel-level costs (launch.*) at 0 every run has the cycles
// it had before they were modelled: each kernel's gpc__cycles_elapsed.max and
// the run's lockstep__gpu_cycles, saved in tests/reference/
// cycles-without-launch-costs.json from the reference runs of the code
// without them. That file is never updated: the costs only add cycles.
TEST_F(ReferenceRuns, WithoutLaunchCostsEveryRunHasItsCyclesFromBeforeThem) {
  std::ifstream in(std::filesystem::path(LOCKSTEP_SOURCE_DIR) / "tests" / "reference" /
                   "cycles-without-launch-costs.json");
  ASSERT_TRUE(in.good());
  const nlohmann::json before = nlohmann::json::parse(in);
  size_t compared = 0;
  for (ReferenceRun run : reference_runs()) {
    SCOPED_TRACE(run.name);
    if (!before.contains(run.name)) continue;  // a run added since (a new workload): no cycles from before
    ++compared;
    for (const char* key : {"launch.kernel_start_cycles", "launch.block_interval_cycles",
                            "launch.sm_block_interval_cycles", "launch.kernel_drain_cycles"})
      run.sets.push_back(std::string(key) + "=0");
    const nlohmann::json now = simulate_run(run, "seq", 1);
    std::vector<uint64_t> kernels;
    for (const nlohmann::json& k : now.at("kernels")) kernels.push_back(k.at("stats").at("gpc__cycles_elapsed.max"));
    EXPECT_EQ(kernels, before.at(run.name).at("kernels").get<std::vector<uint64_t>>());
    EXPECT_EQ(now.at("total").at("lockstep__gpu_cycles").get<uint64_t>(),
              before.at(run.name).at("gpu_cycles").get<uint64_t>());
  }
  EXPECT_EQ(compared, before.size()) << "every saved run is still a reference run";
}

// The comparison sees a one-counter change and names it.
TEST(ReferenceRunComparison, NamesTheCounterThatDiffers) {
  nlohmann::json a = {{"gpu", "X"},
                      {"kernels", {{{"id", 1}, {"name", "k"}, {"stats", {{"c", 1}, {"d", 2}}}}}},
                      {"total", {{"c", 1}, {"d", 2}}}};
  EXPECT_TRUE(differences(a, a).empty());
  nlohmann::json b = a;
  b["kernels"][0]["stats"]["d"] = 3;
  const std::vector<std::string> diffs = differences(a, b);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0], "kernel 1 d: reference 2, now 3");
  b = a;
  b["total"].erase("c");
  EXPECT_EQ(differences(a, b).size(), 1u);
  b = a;
  b["kernels"].push_back(a["kernels"][0]);
  EXPECT_FALSE(differences(a, b).empty());
}

}  // namespace
}  // namespace lockstep
