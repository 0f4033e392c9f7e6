// The driver's everyday behaviour: verify reports each run as it ends,
// progress is whole lines off a terminal, verify and bench take the same
// option names, bench says what it drops, every command and every benchmark
// answers --version / --help, and a killed benchmark leaves no scratch files.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "frontend/trace/version.h"
#include "tests/e2e/cli_command.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string q(const fs::path& p) { return test::quoted(p); }

// verify prints each run's line when the run ends: the first run's line comes
// well before the last, not all at once when verify finishes.
TEST(DailyUse, VerifyPrintsALinePerRunAsItGoes) {
  test::ScratchDir dir("daily");
  const std::string cmd = q(test::lockstep_binary()) + " verify " +
                          q(test::shared_traces() / "bfs-rodinia-sm80") +
                          " --perfect-memory --schedules seq 2>" + q(dir / "err.txt");
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  const auto start = Clock::now();
  double first_run_line = -1, end = 0;
  std::string out;
  char line[1024];
  while (std::fgets(line, sizeof line, p)) {
    out += line;
    if (first_run_line < 0 && std::string(line).rfind("  seq ", 0) == 0)  // the first run's line
      first_run_line = std::chrono::duration<double>(Clock::now() - start).count();
  }
  end = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_EQ(pclose(p), 0) << out << test::read_text(dir / "err.txt");
  ASSERT_GE(first_run_line, 0) << out;
  // Two runs (seq, and seq with fast-forward the other way): the second is still to come.
  EXPECT_LT(first_run_line, 0.7 * end) << "first run line at " << first_run_line << " s of " << end << " s\n" << out;
  EXPECT_NE(out.find("identical"), std::string::npos) << out;
}

// Off a terminal a progress update is a whole line, never a carriage return.
TEST(DailyUse, ProgressIsWholeLinesOffATerminal) {
  test::ScratchDir dir("daily");
  const test::CommandResult r = test::lockstep_cmd(
      "bench " + q(test::shared_traces() / "vectoradd-sm80") + " --perfect-memory --threads 1 --repeat 2", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("bench: repetition 2/2"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

TEST(DailyUse, VerifyAndBenchTakeSingularAndPluralNamesAndBenchSaysWhatItDrops) {
  test::ScratchDir dir("daily");
  const std::string trace = q(test::shared_traces() / "vectoradd-sm80") + " --perfect-memory";
  for (const std::string& args : {"verify " + trace + " --thread 1 --schedule seq --partition contiguous",
                                  "verify " + trace + " --threads 1 --schedules seq --partitions contiguous",
                                  "bench " + trace + " --thread 1 --schedule para1 --partition balanced --repeat 1",
                                  "bench " + trace + " --threads 1 --schedules para1 --partitions balanced --repeat 1"}) {
    SCOPED_TRACE(args);
    const test::CommandResult r = test::lockstep_cmd(args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  const test::CommandResult dropped =
      test::lockstep_cmd("bench " + trace + " --threads 1 --schedules seq,para1 --repeat 1", dir);
  ASSERT_EQ(dropped.exit_code, 0) << dropped.err;
  EXPECT_NE(dropped.err.find("dropping schedule seq"), std::string::npos) << dropped.err;
  EXPECT_NE(dropped.err.find("dropping para1 on 1 thread"), std::string::npos) << dropped.err;
}

TEST(DailyUse, EveryCommandPrintsTheVersion) {
  test::ScratchDir dir("daily");
  for (const char* command : {"run", "verify", "compare", "bench", "convert", "info", "export", "gen", "config", "diff"}) {
    SCOPED_TRACE(command);
    const test::CommandResult r = test::lockstep_cmd(std::string(command) + " --version", dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, std::string("lockstep ") + kVersion + "\n");
  }
}

fs::path bench_binary(const char* name) { return test::lockstep_binary().parent_path() / "bench" / name; }

TEST(DailyUse, EveryBenchmarkTakesHelp) {
  test::ScratchDir dir("daily");
  for (const char* name : {"handshake", "mem_bandwidth", "sim_throughput", "trace_throughput"}) {
    SCOPED_TRACE(name);
    if (!fs::exists(bench_binary(name))) GTEST_SKIP() << "benchmarks not built (LOCKSTEP_BENCH=OFF)";
    const auto start = Clock::now();
    const test::Child c = test::spawn({bench_binary(name).string(), "--help"}, dir / "out.txt", dir / "err.txt");
    const int status = test::wait_for(c);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5.0) << "--help ran the benchmark";
    EXPECT_EQ(test::read_text(dir / "out.txt").rfind(std::string("usage: ") + name, 0), 0u)
        << test::read_text(dir / "out.txt");
  }
}

// A benchmark killed mid-run removes its scratch directory (and its child);
// the --workdir it was given, and what else that holds, stay.
TEST(DailyUse, AKilledBenchmarkLeavesNoScratchFiles) {
  if (!fs::exists(bench_binary("sim_throughput"))) GTEST_SKIP() << "benchmarks not built (LOCKSTEP_BENCH=OFF)";
  test::ScratchDir dir("daily");
  const fs::path work = dir / "work";
  fs::create_directories(work);
  test::write_text(work / "notes.txt", "the user's own file\n");
  for (int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    const test::Child c = test::spawn({bench_binary("sim_throughput").string(), "--size", "200K", "--workdir", work.string()},
                                      dir / "out.txt", dir / "err.txt");
    // Kill it once it has files in its scratch directory (a new one inside `work`).
    const auto start = Clock::now();
    auto has_files = [&] {
      for (const fs::directory_entry& e : fs::directory_iterator(work))
        if (e.is_directory() && !fs::is_empty(e.path())) return true;
      return false;
    };
    while (!has_files() && Clock::now() - start < std::chrono::seconds(30))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(has_files()) << test::read_text(dir / "err.txt");
    ::kill(c.pid, sig);
    const int status = test::wait_for(c);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    std::vector<std::string> left;
    for (const fs::directory_entry& e : fs::directory_iterator(work)) left.push_back(e.path().filename().string());
    EXPECT_EQ(left, std::vector<std::string>{"notes.txt"}) << "scratch directory left behind, or the user's file removed";
  }
}

// A benchmark that ends normally removes only its own scratch directory, not
// the --workdir it was given.
TEST(DailyUse, ABenchmarkRemovesOnlyItsOwnScratchDirectory) {
  if (!fs::exists(bench_binary("mem_bandwidth"))) GTEST_SKIP() << "benchmarks not built (LOCKSTEP_BENCH=OFF)";
  test::ScratchDir dir("daily");
  const fs::path work = dir / "work";
  fs::create_directories(work);
  test::write_text(work / "notes.txt", "the user's own file\n");
  const test::Child c = test::spawn({bench_binary("mem_bandwidth").string(), "--workload", "l1_read", "--size", "64K",
                                     "--workdir", work.string()},
                                    dir / "out.txt", dir / "err.txt");
  const int status = test::wait_for(c);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << test::read_text(dir / "err.txt");
  std::vector<std::string> left;
  for (const fs::directory_entry& e : fs::directory_iterator(work)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"notes.txt"});
}

}  // namespace
}  // namespace lockstep
