// `lockstep run --model memory`, `verify --models memory` and `compare`
// through the driver: the memory model's outputs carry its counters only and
// say which model made them, its results are identical on any thread count,
// and compare tabulates the models' common counters.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "tests/e2e/cli_command.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

std::string q(const std::filesystem::path& p) { return test::quoted(p); }

TEST(MemoryModel, VerifyFindsItIdenticalAcrossThreadsOnEverySampleTrace) {
  test::ScratchDir dir("memory-verify");
  for (const test::RealTrace& t : test::kRealTraces) {
    const test::CommandResult r = test::lockstep_cmd(
        "verify " + q(test::shared_traces() / t.trace) + " --gpu " + t.gpu + " --models memory --threads 1,2,3,8", dir);
    EXPECT_EQ(r.exit_code, 0) << t.trace << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("4 runs"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("DIFFER"), std::string::npos) << r.out;
  }
}

TEST(MemoryModel, TheJsonAndCsvSayWhichModelAndCarryNoCycleCounters) {
  test::ScratchDir dir("memory-json");
  const test::CommandResult r =
      test::lockstep_cmd("run " + q(test::shared_traces() / "bfs-rodinia-sm80") + " --model memory --stats-json " +
                             q(dir / "s.json") + " --stats-csv " + q(dir / "s.csv"),
                         dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::regex_search(r.out, std::regex("[0-9] cycles|IPC [0-9]"))) << "the summary prints no cycles:\n"
                                                                              << r.out;
  const nlohmann::json j = nlohmann::json::parse(test::read_text(dir / "s.json"));
  EXPECT_EQ(j.at("model"), "memory");
  EXPECT_EQ(j.at("producer").at("model"), "memory");
  for (const nlohmann::json& scope : {j.at("total"), j.at("kernels").at(0).at("stats")}) {
    for (const char* timed : {"gpc__cycles_elapsed.max", "ipc", "sm__cycles_active.sum", "lockstep__l2_mshr_merges",
                              "dram__throughput.avg.pct_of_peak_sustained_elapsed", "lockstep__stall.memory"})
      EXPECT_FALSE(scope.contains(timed)) << timed;
    for (const char* measured : {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                 "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
                                 "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "lts__t_sectors_op_read.sum",
                                 "lts__t_sectors_op_write_lookup_hit.sum", "lts__t_sectors_op_atom.sum",
                                 "dram__sectors_read.sum", "dram__sectors_write.sum", "l1tex__t_sector_hit_rate.pct",
                                 "lts__t_sector_op_read_hit_rate.pct"})
      EXPECT_TRUE(scope.contains(measured)) << measured;
  }
  EXPECT_FALSE(j.at("run").contains("cycles_per_second"));
  EXPECT_GT(j.at("run").at("peak_rss_mb").get<double>(), 2.0);  // the one run figure that is not timing
  const std::string csv = test::read_text(dir / "s.csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.find("gpc__cycles_elapsed.max"), std::string::npos) << header;
  EXPECT_NE(header.find("dram__sectors_read.sum"), std::string::npos) << header;
}

TEST(MemoryModel, CompareTabulatesBothModelsCountersWithTheirDifference) {
  test::ScratchDir dir("memory-compare");
  const std::string trace = q(test::shared_traces() / "vectoradd-sm80");
  const test::CommandResult r =
      test::lockstep_cmd("compare " + trace + " --models cycle,memory --csv " + q(dir / "c.csv"), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kernel 1 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ntotal\n"), std::string::npos) << r.out;
  // The CSV's rows against each model's own run.
  ASSERT_EQ(test::lockstep_cmd("run " + trace + " -q --stats-json " + q(dir / "cycle.json"), dir).exit_code, 0);
  ASSERT_EQ(test::lockstep_cmd("run " + trace + " -q --model memory --stats-json " + q(dir / "memory.json"), dir).exit_code, 0);
  const nlohmann::json cycle = nlohmann::json::parse(test::read_text(dir / "cycle.json")).at("total");
  const nlohmann::json memory = nlohmann::json::parse(test::read_text(dir / "memory.json")).at("total");
  std::istringstream csv(test::read_text(dir / "c.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "kernel,name,counter,cycle,memory,memory_vs_cycle");
  int total_rows = 0;
  bool saw_cycles = false;
  while (std::getline(csv, line)) {
    if (line.rfind("total,,", 0) != 0) continue;
    ++total_rows;
    std::istringstream fields(line.substr(7));
    std::string counter, a, b, diff;
    std::getline(fields, counter, ',');
    std::getline(fields, a, ',');
    std::getline(fields, b, ',');
    std::getline(fields, diff, ',');
    saw_cycles |= counter == "gpc__cycles_elapsed.max";
    ASSERT_TRUE(cycle.contains(counter) && memory.contains(counter)) << counter;
    EXPECT_DOUBLE_EQ(std::stod(a), cycle.at(counter).get<double>()) << counter;
    EXPECT_DOUBLE_EQ(std::stod(b), memory.at(counter).get<double>()) << counter;
    if (counter == "smsp__inst_executed.sum") {
      EXPECT_EQ(diff, "+0.0%");
    }
    if (counter.ends_with(".pct")) {
      EXPECT_NE(diff.find(" pts"), std::string::npos) << line;
    }
  }
  EXPECT_FALSE(saw_cycles) << "only the counters both models have";
  EXPECT_EQ(size_t(total_rows), memory.size()) << "every counter of the memory model is also the cycle model's";
}

TEST(MemoryModel, AnUnknownModelIsAOneLineError) {
  test::ScratchDir dir("memory-bad");
  const std::string trace = q(test::shared_traces() / "vectoradd-sm80");
  for (const std::string& cmd : {"run " + trace + " --model bogus", "verify " + trace + " --models memory,bogus",
                                 "compare " + trace + " --models cycle,bogus"}) {
    const test::CommandResult r = test::lockstep_cmd(cmd, dir);
    EXPECT_NE(r.exit_code, 0) << cmd;
    EXPECT_EQ(test::count_lines(r.err), 1) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find("unknown model 'bogus' (known: cycle, memory, abstract)"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << cmd << ": no work before the error\n" << r.out;
  }
}

}  // namespace
}  // namespace lockstep
