// The lockstep driver end to end: bad input gives one clear stderr line and a
// non-zero exit, never a crash or a complete-looking output; run options work.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frontend/container/container_reader.h"
#include "tests/e2e/cli_runner.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

const char* kHeader =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 16\n"
    "-binary version = 70\n-cuda stream id = 0\n-accelsim tracer version = 3\n\n";
// The same kernel with a grid of one block, for traces that must be whole.
const std::string kHeaderOneBlock = [] {
  std::string h = kHeader;
  h.replace(h.find("(2,1,1)"), 7, "(1,1,1)");
  return h;
}();

TEST(Cli, ConvertOfATruncatedTraceFailsWithOneLineAndNoOutput) {
  test::ScratchDir dir("cli");
  write(dir / "kernel-1.traceg",
        std::string(kHeader) + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n");
  const Result r = lockstep_cmd("convert '" + (dir / "kernel-1.traceg").string() + "' -o '" + (dir / "o.lst").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("kernel-1.traceg:11: thread block has no #END_TB"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o.lst"));
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find("o.lst"), std::string::npos) << "temporary left: " << e.path();
}

TEST(Cli, ExportOfACorruptContainerFailsWithOneLineAndNoOutput) {
  test::ScratchDir dir("cli");
  const auto lst = dir / "t.lst";
  ASSERT_EQ(lockstep_cmd("convert '" + (test::shared_traces() / "vectoradd-sm80").string() + "' -o '" + lst.string() + "' -q", dir).exit_code, 0);
  {
    std::fstream f(lst, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);  // inside the first chunk (after the 16-byte head and the header frame)
    char c;
    f.seekg(200);
    f.get(c);
    f.seekp(200);
    f.put(char(c ^ 0x5a));
  }
  const Result r = lockstep_cmd("export '" + lst.string() + "' -o '" + (dir / "out").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("t.lst"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(Cli, UnknownOpcodeIsAClearErrorFixableWithIsaExtra) {
  test::ScratchDir dir("cli");
  write(dir / "kernel-1.traceg", kHeaderOneBlock +
                                     "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                                     "0000 ffffffff 1 R2 FROBNICATE.X 1 R3 0\n0010 ffffffff 0 EXIT 0 0\n#END_TB\n");
  const std::string trace = test::quoted(dir / "kernel-1.traceg") + " --perfect-memory --gpu QV100";
  const Result bad = lockstep_cmd("run " + trace, dir);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("unknown opcode 'FROBNICATE.X' for sm_70"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("PC 0x0000"), std::string::npos) << bad.err;
  const Result good = lockstep_cmd("run " + trace + " --set isa.extra=FROBNICATE:SP", dir);
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("2 warp instructions"), std::string::npos) << good.out;
}

TEST(Cli, RunSelectsKernelsAndWritesJson) {
  test::ScratchDir dir("cli");
  const auto json = dir / "s.json";
  const Result r = lockstep_cmd("run '" + (test::shared_traces() / "bfs-rodinia-sm80").string() +
                                    "' --perfect-memory --kernels 2,4-5 --quiet --stats-json '" + json.string() + "'",
                                dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(json);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string j = ss.str();
  EXPECT_NE(j.find("\"id\": 2,"), std::string::npos);
  EXPECT_NE(j.find("\"id\": 4,"), std::string::npos);
  EXPECT_NE(j.find("\"id\": 5,"), std::string::npos);
  EXPECT_EQ(j.find("\"id\": 3,"), std::string::npos);
  EXPECT_NE(j.find("\"launch__kernels\": 3"), std::string::npos);
  EXPECT_NE(j.find("\"run\": {"), std::string::npos);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos);
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

// lockstep bench's cycle rate counts the simulated cycles only, and the
// cycles fast-forward jumped over are a share of their own: both agree with
// the engine's counts in a `lockstep run` of the same trace (the counts are
// deterministic; only the wall time differs between the runs).
TEST(Cli, BenchReportsSimulatedAndSkippedCyclesApart) {
  test::ScratchDir dir("cli-bench");
  const std::string trace = test::quoted(test::shared_traces() / "bfs-rodinia-sm80");
  const auto json = dir / "s.json", csv = dir / "b.csv";
  const Result run = lockstep_cmd("run " + trace + " --quiet --stats-json " + test::quoted(json), dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string j = test::read_text(json);
  auto count = [&](const char* key) {
    const std::string quoted = std::string("\"").append(key).append("\": ");
    const size_t at = j.find(quoted);
    return at == std::string::npos ? -1.0 : std::stod(j.substr(at + quoted.size()));
  };
  const double simulated = count("parallel_cycles") + count("serial_cycles"), skipped = count("skipped_cycles");
  ASSERT_GT(simulated, 0);
  ASSERT_GT(skipped, 0.1 * (simulated + skipped));  // launch gaps and idle stretches: a rate with them would differ
  const Result bench = lockstep_cmd("bench " + trace + " --threads 2 --schedule para1 --repeat 1 --csv " + test::quoted(csv), dir);
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  std::istringstream rows(test::read_text(csv));
  std::string line;
  std::getline(rows, line);
  const std::vector<std::string> header = csv_fields(line);
  auto column = [&](const std::string& name) { return size_t(std::find(header.begin(), header.end(), name) - header.begin()); };
  const size_t wall = column("wall_s"), rate = column("simulated_cycles_per_s"), share = column("skipped_cycle_share");
  ASSERT_LT(std::max({wall, rate, share}), header.size()) << line;
  int configs = 0;
  for (; std::getline(rows, line); ++configs) {
    SCOPED_TRACE(line);
    const std::vector<std::string> f = csv_fields(line);
    ASSERT_EQ(f.size(), header.size());
    EXPECT_NEAR(std::stod(f[rate]) * std::stod(f[wall]), simulated, 1e-3 * simulated + 1);
    EXPECT_NEAR(std::stod(f[share]), skipped / (simulated + skipped), 1e-4);
  }
  EXPECT_EQ(configs, 2);  // seq and para1 on 2 threads
}

TEST(Cli, BadOptionsAndConfigValuesAreOneLineErrors) {
  test::ScratchDir dir("cli");
  const std::string trace = test::quoted(test::shared_traces() / "vectoradd-sm80") + " --perfect-memory";
  for (const std::string& args : {std::string("run ") + trace + " --set sm.no_such_key=1",
                                  std::string("run ") + trace + " --set sm.subcores=0",
                                  std::string("run ") + trace + " --kernels 3-1",
                                  std::string("run ") + trace + " --gpu NoSuchGpu",
                                  std::string("run ") + trace + " --cluster-order shuffle:x",
                                  std::string("run ") + trace + " --kernels 9"}) {
    SCOPED_TRACE(args);
    const Result r = lockstep_cmd(args, dir);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
  const Result bad_memory = lockstep_cmd(
      "run '" + (test::shared_traces() / "vectoradd-sm80").string() + "' --gpu A100 --set dram.bank_groups=3", dir);
  EXPECT_NE(bad_memory.exit_code, 0);
  EXPECT_EQ(lines(bad_memory.err), 1) << bad_memory.err;
  EXPECT_NE(bad_memory.err.find("dram.bank_groups"), std::string::npos) << bad_memory.err;
}

TEST(Cli, MaxCyclesStopsTheRun) {
  test::ScratchDir dir("cli");
  const Result r = lockstep_cmd("run '" + (test::shared_traces() / "bfs-rodinia-sm80").string() +
                                    "' --perfect-memory --max-cycles 500",
                                dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[truncated]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("500 cycles"), std::string::npos) << r.out;
}

TEST(Cli, WatchdogReportsStuckWarps) {
  test::ScratchDir dir("cli");
  // One warp waits 100000 cycles for an SFU result; a 2000-cycle watchdog fires.
  write(dir / "kernel-1.traceg", kHeaderOneBlock +
                                     "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
                                     "0000 ffffffff 1 R2 MUFU.RCP 1 R3 0\n0010 ffffffff 1 R4 FADD 1 R2 0\n"
                                     "0020 ffffffff 0 EXIT 0 0\n#END_TB\n");
  const Result r = lockstep_cmd("run '" + (dir / "kernel-1.traceg").string() +
                                    "' --perfect-memory --gpu QV100 --set unit.SFU.latency=100000 --set gpu.watchdog_cycles=2000",
                                dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("watchdog"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("block (0,0,0) warp 0: instruction 1 of 3, waiting for results"), std::string::npos) << r.err;
}

TEST(Cli, InstructionsAfterAFullExitAreWarnedOncePerKernel) {
  test::ScratchDir dir("cli");
  std::string body = "#BEGIN_TB\nthread block = 0,0,0\n";
  for (int w = 0; w < 1; ++w)
    body += "warp = 0\ninsts = 3\n0000 ffffffff 0 EXIT 0 0\n0010 ffffffff 1 R2 FADD 1 R3 0\n0020 00000000 1 R4 FADD 1 R2 0\n";
  body += "#END_TB\n#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 EXIT 0 0\n0010 ffffffff 1 R2 FADD 1 R3 0\n#END_TB\n";
  write(dir / "kernel-1.traceg", std::string(kHeader) + body);
  const Result r = lockstep_cmd("run '" + (dir / "kernel-1.traceg").string() + "' --perfect-memory --gpu QV100", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("2 warp(s) have instructions after an EXIT"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("5 warp instructions"), std::string::npos) << r.out;
}

// Negative numbers used to wrap (--threads -1: std::bad_alloc; --max-cycles
// -5: no limit); every whole-number option is now checked.
TEST(Cli, NegativeAndOutOfRangeNumbersAreUsageErrors) {
  test::ScratchDir dir("cli");
  const std::string trace = "'" + (test::shared_traces() / "vectoradd-sm80").string() + "'";
  for (const std::string& args :
       {"run " + trace + " --threads -1", "run " + trace + " --threads 0", "run " + trace + " --threads 5000",
        "run " + trace + " --max-cycles -5", "run " + trace + " --max-cycles 1e3",
        "convert " + trace + " -o '" + (dir / "o.lst").string() + "' --jobs -1", "verify " + trace + " --threads -1",
        "verify " + trace + " --max-cycles -5", "bench " + trace + " --repeat -1", "info " + trace + " --opcodes -3",
        "gen vecadd -o '" + (dir / "g").string() + "' --sms -1"}) {
    SCOPED_TRACE(args);
    const Result r = lockstep_cmd(args, dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("expected a whole number from"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "o.lst"));
}

// More threads than the system can start (an address-space limit leaves no
// room for their stacks): one line, not std::terminate and SIGABRT.
TEST(Cli, ThreadsThatCannotStartAreAOneLineError) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve more address space than the limit this test sets";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  GTEST_SKIP() << "sanitizers reserve more address space than the limit this test sets";
#endif
#endif
  test::ScratchDir dir("cli");
  const Result r = lockstep_cmd("run '" + (test::shared_traces() / "vectoradd-sm80").string() +
                                    "' --perfect-memory --threads 1000 --schedule para1",
                                dir, "ulimit -s 8192; ulimit -v 1000000; ");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot start simulation thread"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("of 1000"), std::string::npos) << r.err;
}

// A corrupt chunk in the last kernel: the 15 kernels before it are reported
// (summary and JSON, marked incomplete, with the error), exactly as a run of
// the intact trace reports them, and the command still fails.
TEST(Cli, KernelsDoneBeforeAnErrorAreReportedAsIncomplete) {
  test::ScratchDir dir("cli");
  const auto lst = dir / "t.lst";
  ASSERT_EQ(lockstep_cmd("convert '" + (test::shared_traces() / "bfs-rodinia-sm80").string() + "' -o '" + lst.string() +
                             "' -q",
                         dir)
                .exit_code,
            0);
  const auto intact_json = dir / "intact.json";
  ASSERT_EQ(lockstep_cmd("run '" + lst.string() + "' --perfect-memory -q --stats-json '" + intact_json.string() + "'", dir)
                .exit_code,
            0);
  uint64_t offset = 0;
  uint32_t kernels = 0;
  {
    ContainerReader reader(lst);
    kernels = reader.kernel_count();
    ASSERT_EQ(kernels, 16u);
    const ChunkInfo chunk = reader.block_index(kernels - 1)->chunks.front();
    offset = chunk.offset + chunk.size / 2;
  }
  {
    std::fstream f(lst, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(offset));
    char c;
    f.get(c);
    f.seekp(std::streamoff(offset));
    f.put(char(c ^ 0x5a));
  }
  const auto json = dir / "partial.json";
  const Result r = lockstep_cmd("run '" + lst.string() + "' --perfect-memory --stats-json '" + json.string() + "'", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("t.lst"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("INCOMPLETE: stopped by an error (below): 15 kernel(s) finished"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total: 15 kernels"), std::string::npos) << r.out;
  ASSERT_TRUE(std::filesystem::exists(json));
  const nlohmann::json partial = read_json(json), intact = read_json(intact_json);
  EXPECT_EQ(partial.value("incomplete", false), true);
  const std::string prefix = "lockstep run: error: ";
  ASSERT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
  EXPECT_EQ(partial.value("error", std::string()) + "\n", r.err.substr(prefix.size()));
  ASSERT_EQ(partial["kernels"].size(), 15u);
  for (size_t k = 0; k < 15; ++k) EXPECT_EQ(partial["kernels"][k], intact["kernels"][k]) << "kernel " << k + 1;
  ASSERT_EQ(partial["not_simulated"].size(), 1u);
  EXPECT_EQ(partial["not_simulated"][0]["id"], 16);
  EXPECT_FALSE(intact.contains("incomplete"));
  EXPECT_TRUE(intact["not_simulated"].empty());
}

// --max-cycles says what it stopped: kernels finished, the kernel cut, the
// kernels never started (and the JSON lists each of those).
TEST(Cli, MaxCyclesReportsFinishedCutAndNotStartedKernels) {
  test::ScratchDir dir("cli");
  const auto json = dir / "s.json";
  const Result r = lockstep_cmd("run '" + (test::shared_traces() / "bfs-rodinia-sm80").string() +
                                    "' --perfect-memory --max-cycles 500 --stats-json '" + json.string() + "'",
                                dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stopped by --max-cycles 500: 0 kernel(s) finished, kernel 1 cut, 15 not started (kernel 2, 3, "),
            std::string::npos)
      << r.out;
  const nlohmann::json j = read_json(json);
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["truncated"], true);
  ASSERT_EQ(j["not_simulated"].size(), 15u);
  for (uint32_t i = 0; i < 15; ++i) {
    EXPECT_EQ(j["not_simulated"][i]["id"], i + 2);
    EXPECT_EQ(j["not_simulated"][i]["reason"], "not started (--max-cycles)");
  }
}

// --threads N alone runs the threaded schedule (para1) and both reports say
// how many threads ran; an explicit --schedule seq still runs on one.
TEST(Cli, ThreadsAlonePicksTheThreadedScheduleAndReportsThreadsUsed) {
  test::ScratchDir dir("cli");
  const std::string trace = "'" + (test::shared_traces() / "vectoradd-sm80").string() + "' --perfect-memory";
  const auto json = dir / "s.json";
  const Result threaded = lockstep_cmd("run " + trace + " --threads 2 --stats-json '" + json.string() + "'", dir);
  ASSERT_EQ(threaded.exit_code, 0) << threaded.err;
  EXPECT_NE(threaded.out.find("2 thread(s), schedule para1"), std::string::npos) << threaded.out;
  EXPECT_EQ(read_json(json)["run"]["threads"], 2);
  EXPECT_EQ(read_json(json)["run"]["schedule"], "para1");
  // The process's own peak resident memory (a few MB at least, far below a GB here).
  const double rss = read_json(json)["run"]["peak_rss_mb"].get<double>();
  EXPECT_GT(rss, 2.0);
  EXPECT_LT(rss, 1024.0);
  const Result seq = lockstep_cmd("run " + trace + " --threads 2 --schedule seq --stats-json '" + json.string() + "'", dir);
  ASSERT_EQ(seq.exit_code, 0) << seq.err;
  EXPECT_NE(seq.out.find("1 thread(s), schedule seq"), std::string::npos) << seq.out;
  EXPECT_EQ(read_json(json)["run"]["threads"], 1);
}

// vectoradd copies two 200,000-byte arrays and then reads each byte once:
// with the copies warming the L2 all 400,000 / 32 = 12,500 read sectors hit
// there; with --no-memcpy-warm every one comes from DRAM.
TEST(Cli, NoMemcpyWarmStartsWithColdCaches) {
  test::ScratchDir dir("cli");
  const std::string trace = "'" + (test::shared_traces() / "vectoradd-sm80").string() + "' --gpu A100 -q";
  const auto warm_json = dir / "warm.json", cold_json = dir / "cold.json";
  ASSERT_EQ(lockstep_cmd("run " + trace + " --stats-json '" + warm_json.string() + "'", dir).exit_code, 0);
  ASSERT_EQ(lockstep_cmd("run " + trace + " --no-memcpy-warm --stats-json '" + cold_json.string() + "'", dir).exit_code,
            0);
  const nlohmann::json warm = read_json(warm_json), cold = read_json(cold_json);
  EXPECT_EQ(warm["memcpy_warm"], true);
  EXPECT_EQ(cold["memcpy_warm"], false);
  EXPECT_EQ(warm["total"]["lts__t_sectors_op_read.sum"], 12500);
  EXPECT_EQ(cold["total"]["lts__t_sectors_op_read.sum"], 12500);
  EXPECT_EQ(warm["total"]["lts__t_sectors_op_read_lookup_hit.sum"], 12500);
  EXPECT_EQ(warm["total"]["dram__sectors_read.sum"], 0);
  EXPECT_EQ(cold["total"]["lts__t_sectors_op_read_lookup_hit.sum"], 0);
  EXPECT_EQ(cold["total"]["dram__sectors_read.sum"], 12500);
  EXPECT_GT(cold["total"]["gpc__cycles_elapsed.max"].get<uint64_t>(), warm["total"]["gpc__cycles_elapsed.max"].get<uint64_t>());
}

// compare with three models: every counter of the first that another shares,
// "-" (an empty CSV field) where a model has none: the cycles and IPC of the
// abstract model and the memory counters of the memory model side by side.
TEST(Cli, CompareOfThreeModelsShowsWhatEachSharesWithTheFirst) {
  test::ScratchDir dir("cli-compare3");
  const std::string trace = test::quoted(test::shared_traces() / "bfs-rodinia-sm80");
  const Result r =
      lockstep_cmd("compare " + trace + " --models cycle,abstract,memory --csv " + test::quoted(dir / "c.csv"), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream rows(test::read_text(dir / "c.csv"));
  std::string line;
  std::getline(rows, line);
  EXPECT_EQ(line, "kernel,name,counter,cycle,abstract,memory,abstract_vs_cycle,memory_vs_cycle");
  std::map<std::string, std::vector<std::string>> total;  // counter -> cycle, abstract, memory, both differences
  while (std::getline(rows, line)) {
    if (line.rfind("total,,", 0) != 0) continue;
    std::vector<std::string> f = csv_fields(line.substr(7));
    f.resize(6);  // (getline drops a last empty field)
    total[f[0]] = std::vector<std::string>(f.begin() + 1, f.end());
  }
  for (const char* timed : {"gpc__cycles_elapsed.max", "ipc"}) {
    SCOPED_TRACE(timed);
    ASSERT_EQ(total.count(timed), 1u);
    EXPECT_FALSE(total[timed][1].empty());  // abstract
    EXPECT_TRUE(total[timed][2].empty());   // memory: no cycles
    EXPECT_FALSE(total[timed][3].empty());
    EXPECT_TRUE(total[timed][4].empty());
  }
  for (const char* memory : {"lts__t_sectors_op_read.sum", "l1tex__t_sector_hit_rate.pct"}) {
    SCOPED_TRACE(memory);
    ASSERT_EQ(total.count(memory), 1u);
    EXPECT_TRUE(total[memory][1].empty());  // abstract: no cache counters
    EXPECT_FALSE(total[memory][2].empty());
    EXPECT_TRUE(total[memory][3].empty());
    EXPECT_FALSE(total[memory][4].empty());
  }
  EXPECT_EQ(total["smsp__inst_executed.sum"][3], "+0.0%");
  EXPECT_EQ(total["smsp__inst_executed.sum"][4], "+0.0%");
  // The table says "-" for the missing ones.
  const size_t at = r.out.rfind("  gpc__cycles_elapsed.max ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string row = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(row.find(" - "), std::string::npos) << row;
}

// The abstract model steps no cycles: its run line gives the cycles it timed
// per second, not a cycle rate of 0.
TEST(Cli, AbstractRunLineGivesTheCyclesItTimedPerSecond) {
  test::ScratchDir dir("cli-abstract-rate");
  const std::string trace = test::quoted(test::shared_traces() / "bfs-rodinia-sm80");
  const Result r = lockstep_cmd("run " + trace + " --model abstract", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = r.out + r.err;
  const size_t at = text.find(" timed cycles/s");
  ASSERT_NE(at, std::string::npos) << text;
  const size_t from = text.rfind(", ", at);
  ASSERT_NE(from, std::string::npos) << text;
  EXPECT_GT(std::stod(text.substr(from + 2, at - from - 2)), 0.0) << text;
  EXPECT_EQ(text.find("simulated cycles/s"), std::string::npos) << text;
}

// verify --models abstract: every thread count against one thread, and once
// more with every kernel read twice (the other way of reading them).
TEST(Cli, VerifyComparesTheAbstractModelOnEachCountAndReadTwice) {
  test::ScratchDir dir("cli-verify-abstract");
  const std::string trace = "'" + (test::shared_traces() / "bfs-rodinia-sm80").string() + "'";
  const Result r = lockstep_cmd("verify " + trace + " --models abstract --threads 1,2", dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("3 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(read twice)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DIFFER"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace lockstep
