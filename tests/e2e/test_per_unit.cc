// `lockstep run --per-unit` end to end: every kernel and the total gain a
// "units" object (the SMs as cluster<c>.sm<id>, then the memory side's block
// instances) whose counters sum to the kernel's / the run's totals; the same
// file on every schedule and thread count; without the flag the file is what
// it was, and the per-unit file is it plus the "units" objects; with perfect
// memory only the SMs are listed. `lockstep diff` compares the units too,
// and the sweep collector takes only counters from the total.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "configs/spec/gpu_config.h"
#include "frontend/gen/workload_generator.h"
#include "tests/e2e/cli_command.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // keeps the file's order

std::string q(const fs::path& p) { return test::quoted(p); }

json run_json(const std::string& args, const fs::path& out, const test::ScratchDir& dir) {
  const test::CommandResult r = test::lockstep_cmd("run " + args + " -q --stats-json " + q(out), dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(test::read_text(out)) : json::object();
}

// What differs between runs of the same simulation: the wall-clock figures and the command line.
json deterministic(json j) {
  j.erase("run");
  j.erase("producer");
  return j;
}

json without_units(json j) {
  for (json& k : j["kernels"]) k.erase("units");
  j["total"].erase("units");
  return j;
}

// The unit names a GPU has, in the order the file lists them.
std::vector<std::string> expected_units(const GpuSpec& spec, bool perfect_memory) {
  std::vector<std::string> names;
  for (uint32_t id = 0; id < spec.sms; ++id)
    names.push_back("cluster" + std::to_string(id / spec.sms_per_cluster) + ".sm" + std::to_string(id));
  if (perfect_memory) return names;
  names.push_back("icnt.request");
  names.push_back("icnt.reply");
  for (uint32_t s = 0; s < spec.memory.l2_slices(); ++s) names.push_back("l2.slice" + std::to_string(s));
  for (uint32_t c = 0; c < spec.memory.dram.channels; ++c) names.push_back("dram.channel" + std::to_string(c));
  return names;
}

bool is_sm(const std::string& unit) { return unit.rfind("cluster", 0) == 0; }

// `units` lists exactly `names` in order; per counter name, the SMs' values
// summed and the memory instances' summed equal `totals`' counter. Returns
// how many sums were nonzero (a check over zeros only proves little).
size_t check_units_sum_to_totals(const json& units, const json& totals, const std::vector<std::string>& names,
                                 const std::string& where) {
  SCOPED_TRACE(where);
  std::vector<std::string> listed;
  for (auto it = units.begin(); it != units.end(); ++it) listed.push_back(it.key());
  EXPECT_EQ(listed, names);
  std::map<std::string, uint64_t> sm_sum, memory_sum;
  for (auto it = units.begin(); it != units.end(); ++it) {
    std::map<std::string, uint64_t>& sum = is_sm(it.key()) ? sm_sum : memory_sum;
    for (auto c = it->begin(); c != it->end(); ++c) {
      EXPECT_TRUE(c->is_number_unsigned()) << it.key() << " " << c.key();
      sum[c.key()] += c->get<uint64_t>();
    }
  }
  size_t nonzero = 0;
  for (const auto* sums : {&sm_sum, &memory_sum})
    for (const auto& [counter, value] : *sums) {
      if (!totals.contains(counter)) {
        ADD_FAILURE() << "per-unit counter " << counter << " is not among the totals";
        continue;
      }
      EXPECT_EQ(value, totals[counter].get<uint64_t>()) << counter;
      nonzero += value != 0;
    }
  return nonzero;
}

// Every kernel's and the total's units against their totals.
void check_file(const json& j, const GpuSpec& spec, bool perfect_memory) {
  ASSERT_FALSE(j["kernels"].empty());
  const std::vector<std::string> names = expected_units(spec, perfect_memory);
  size_t nonzero = 0;
  for (const json& k : j["kernels"]) {
    ASSERT_TRUE(k.contains("units")) << "kernel " << k["id"];
    nonzero += check_units_sum_to_totals(k["units"], k["stats"], names, "kernel " + k["id"].dump());
  }
  ASSERT_TRUE(j["total"].contains("units"));
  json totals = j["total"];
  totals.erase("units");
  nonzero += check_units_sum_to_totals(j["total"]["units"], totals, names, "total");
  EXPECT_GT(nonzero, 0u);
}

// --per-unit gives the file without it plus the "units" objects, no more.
void check_same_without_units(const json& per_unit, const std::string& args, const test::ScratchDir& dir) {
  const json plain = run_json(args, dir / "plain.json", dir);
  EXPECT_EQ(test::read_text(dir / "plain.json").find("\"units\""), std::string::npos);
  EXPECT_EQ(deterministic(without_units(per_unit)), deterministic(plain));
}

TEST(PerUnit, UnitsSumToTheTotalsOnASampleTrace) {
  test::ScratchDir dir("per-unit");
  const std::string args = q(test::shared_traces() / "bfs-rodinia-sm80") + " --gpu A100";
  const json j = run_json(args + " --per-unit", dir / "units.json", dir);
  check_file(j, load_gpu_spec("A100", {}), false);
  check_same_without_units(j, args, dir);
}

TEST(PerUnit, UnitsSumToTheTotalsOnAGeneratedWorkloadWithTwoSmsPerCluster) {
  test::ScratchDir dir("per-unit");
  GenOptions g;
  g.workload = "graph";
  g.size = 60'000;
  generate_trace(g, dir / "graph");
  const std::vector<std::string> sets = {"gpu.sms_per_cluster=2"};
  const std::string args = q(dir / "graph") + " --gpu QV100 --set " + sets[0];
  const json j = run_json(args + " --per-unit", dir / "units.json", dir);
  check_file(j, load_gpu_spec("QV100", sets), false);
  check_same_without_units(j, args, dir);
}

TEST(PerUnit, SameFileOnEveryScheduleAndThreadCount) {
  test::ScratchDir dir("per-unit");
  GenOptions g;
  g.workload = "stencil2d";
  g.size = 60'000;
  generate_trace(g, dir / "stencil");
  for (const std::string& trace : {q(dir / "stencil") + " --gpu QV100",
                                   q(test::shared_traces() / "lud-kernel8-sm70") + " --gpu QV100"}) {
    SCOPED_TRACE(trace);
    const json seq = deterministic(run_json(trace + " --per-unit", dir / "seq.json", dir));
    ASSERT_TRUE(seq["total"].contains("units"));
    EXPECT_EQ(deterministic(run_json(trace + " --per-unit --threads 2 --schedule para1", dir / "p1.json", dir)), seq);
    EXPECT_EQ(deterministic(run_json(trace + " --per-unit --threads 3 --schedule para2", dir / "p2.json", dir)), seq);
    EXPECT_EQ(deterministic(run_json(trace + " --per-unit --threads 3 --schedule para2 --partition balanced",
                                     dir / "p2b.json", dir)),
              seq);
  }
}

TEST(PerUnit, PerfectMemoryListsOnlyTheSms) {
  test::ScratchDir dir("per-unit");
  const std::string args = q(test::shared_traces() / "vectoradd-sm80") + " --gpu A100 --perfect-memory";
  const json j = run_json(args + " --per-unit", dir / "units.json", dir);
  check_file(j, load_gpu_spec("A100", {}), true);
  check_same_without_units(j, args, dir);
}

TEST(PerUnit, WithoutAJsonOutputIsAOneLineError) {
  test::ScratchDir dir("per-unit");
  const test::CommandResult r =
      test::lockstep_cmd("run " + q(test::shared_traces() / "vectoradd-sm80") + " --gpu A100 -q --per-unit", dir);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--per-unit needs --stats-json"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(PerUnit, DiffComparesTheUnitsWhenBothFilesHaveThem) {
  test::ScratchDir dir("per-unit");
  const std::string args = q(test::shared_traces() / "vectoradd-sm80") + " --gpu A100";
  json a = run_json(args + " --per-unit", dir / "a.json", dir);
  run_json(args, dir / "plain.json", dir);
  // One SM's counter changed, the totals left alone: only the units show it.
  json b = a;
  b["kernels"][0]["units"]["cluster3.sm3"]["smsp__inst_executed.sum"] =
      a["kernels"][0]["units"]["cluster3.sm3"]["smsp__inst_executed.sum"].get<uint64_t>() + 1;
  b["total"]["units"].erase("dram.channel2");
  std::ofstream(dir / "b.json") << b.dump();
  const test::CommandResult same = test::lockstep_cmd("diff " + q(dir / "a.json") + " " + q(dir / "a.json"), dir);
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_NE(same.out.find("per unit too"), std::string::npos) << same.out;
  const test::CommandResult d = test::lockstep_cmd("diff " + q(dir / "a.json") + " " + q(dir / "b.json"), dir);
  EXPECT_EQ(d.exit_code, 1) << d.out << d.err;
  EXPECT_NE(d.out.find("1 counter(s) differ"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("kernel 1 cluster3.sm3"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("total unit dram.channel2 is only in " + (dir / "a.json").string()), std::string::npos)
      << d.out;
  // Per-unit counters in one file only: the rest compared, a note says so.
  const test::CommandResult one = test::lockstep_cmd("diff " + q(dir / "a.json") + " " + q(dir / "plain.json"), dir);
  EXPECT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_NE(one.out.find("per-unit counters only in " + (dir / "a.json").string() + ": not compared"),
            std::string::npos)
      << one.out;
  // A "units" that is not an object of counter objects: an error.
  b["kernels"][0]["units"] = 3;
  std::ofstream(dir / "bad.json") << b.dump();
  const test::CommandResult bad = test::lockstep_cmd("diff " + q(dir / "a.json") + " " + q(dir / "bad.json"), dir);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("\"units\" is not an object"), std::string::npos) << bad.err;
}

// A point's stats file written with --per-unit collects to the same CSV: the
// collector takes counters only, not the total's "units" object.
TEST(PerUnit, SweepCollectIgnoresTheUnits) {
  test::ScratchDir dir("per-unit");
  const fs::path trace = test::shared_traces() / "vectoradd-sm80";
  std::ofstream(dir / "sweep.toml") << "output = \"out\"\ngpus = [\"A100\"]\noverrides = [\"base\"]\n[sets]\n"
                                       "base = []\n[[traces]]\npath = \"" + trace.string() + "\"\n";
  const fs::path out = dir / "out";
  const test::CommandResult sweep =
      test::lockstep_cmd("sweep " + q(dir / "sweep.toml") + " --launcher local --jobs 1 --out " + q(out), dir);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const auto collect = [&](const std::string& csv) {
    const test::CommandResult r = test::lockstep_cmd("sweep --collect " + q(out) + " -o " + q(dir / csv), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return test::read_text(dir / csv);
  };
  const std::string plain = collect("plain.csv");
  const fs::path stats = out / "vectoradd-sm80/A100/base/stats.json";
  ASSERT_TRUE(fs::exists(stats));
  run_json(q(trace) + " --gpu A100 --per-unit", stats, dir);
  ASSERT_NE(test::read_text(stats).find("\"units\""), std::string::npos);
  const std::string per_unit = collect("units.csv");
  EXPECT_EQ(per_unit.find("units"), std::string::npos) << per_unit.substr(0, per_unit.find('\n'));
  EXPECT_TRUE(per_unit == plain) << "the CSVs differ";
}

}  // namespace
}  // namespace lockstep
