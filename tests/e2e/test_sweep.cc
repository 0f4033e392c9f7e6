// lockstep sweep end to end: sweep files checked before anything runs, the
// local launcher, per-point records, --status, --collect and --plot, and the
// Slurm launcher on a real single-node cluster (scripts/slurm-local.sh), with
// one array task cancelled mid-run and resubmitted.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "tests/e2e/cli_command.h"
#include "tests/test_paths.h"

namespace fs = std::filesystem;

namespace lockstep {
namespace {

using Result = test::CommandResult;
using test::quoted;
std::string read_file(const fs::path& p) { return test::read_text(p); }
Result shell(const std::string& command, const test::ScratchDir& scratch) { return test::shell_cmd(command, scratch); }
Result lockstep(const std::string& args, const test::ScratchDir& scratch) { return test::lockstep_cmd(args, scratch); }
int lines(const std::string& s) { return test::count_lines(s); }

fs::path sample_sweep() { return fs::path(LOCKSTEP_SOURCE_DIR) / "configs/sweeps/sample.toml"; }

// A sweep file in `dir` whose trace paths are absolute.
fs::path write_sweep(const test::ScratchDir& dir, const std::string& name, const std::string& text) {
  const fs::path file = dir / name;
  std::ofstream(file) << text;
  return file;
}

std::string shared(const std::string& trace) { return (test::shared_traces() / trace).string(); }

// A valid two-trace sweep with one line replaced (`from` -> `to`) to break it.
std::string small_sweep(const std::string& from = "", const std::string& to = "") {
  std::string text =
      "output = \"out\"\n"
      "gpus = [\"A100\", \"RTX3070\"]\n"
      "overrides = [\"base\", \"l1off+gto\"]\n"
      "[sets]\n"
      "base = []\n"
      "l1off = [\"l1d.cache_global=false\"]\n"
      "gto = [\"sm.scheduler=gto\"]\n"
      "[[traces]]\n"
      "path = \"" + shared("vectoradd-sm80") + "\"\n"
      "[[traces]]\n"
      "path = \"" + shared("lud-kernel8-sm70") + "\"\n"
      "kernels = \"8\"\n";
  if (!from.empty()) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return text;
}

// The sample sweep run locally into `out`, collected into `csv`.
void run_sample_locally(const test::ScratchDir& scratch, const fs::path& out, const fs::path& csv) {
  const Result run = lockstep("sweep " + quoted(sample_sweep()) + " --launcher local --jobs 2 --out " + quoted(out), scratch);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Result collect = lockstep("sweep --collect " + quoted(out) + " -o " + quoted(csv), scratch);
  ASSERT_EQ(collect.exit_code, 0) << collect.err;
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    rows.push_back(cells);
  }
  return rows;
}

TEST(SweepFile, BadFilesAreOneLineErrorsBeforeAnythingRuns) {
  test::ScratchDir dir("sweep");
  struct Case {
    const char* what;
    std::string text;
    std::string expected;  // in the error line, after "bad.toml:LINE: "
  };
  const Case cases[] = {
      {"unknown key", small_sweep("gpus =", "thread = 2\ngpus ="), "bad.toml:2: unknown key 'thread'"},
      {"unknown trace key", small_sweep("kernels =", "kernel ="), "bad.toml:12: unknown key 'traces.kernel'"},
      {"missing trace", small_sweep(shared("vectoradd-sm80"), shared("no-such-trace")),
       "bad.toml:9: trace '" + shared("no-such-trace") + "' not found"},
      {"glob matching nothing", small_sweep(shared("vectoradd-sm80"), shared("nothing-*")),
       "bad.toml:9: trace pattern '" + shared("nothing-*") + "' matches nothing"},
      {"kernel the trace lacks", small_sweep("kernels = \"8\"", "kernels = \"3\""),
       "bad.toml:11: trace 'lud-kernel8-sm70' has no kernel 3"},
      {"unknown GPU", small_sweep("\"RTX3070\"]", "\"V200\"]"), "bad.toml:2: GPU 'V200': "},
      {"undefined set group", small_sweep("l1off+gto", "l1off+lrr"),
       "bad.toml:3: override 'l1off+lrr': no set group 'lrr' in [sets] (groups: base, gto, l1off)"},
      {"unknown config key in a set", small_sweep("sm.scheduler=gto", "sm.schedulr=gto"),
       "bad.toml:3: override 'l1off+gto' on GPU 'A100': "},
      {"bad config value in a set", small_sweep("sm.scheduler=gto", "sm.scheduler=fastest"),
       "bad.toml:3: override 'l1off+gto' on GPU 'A100': "},
      {"set value without '='", small_sweep("\"sm.scheduler=gto\"", "\"sm.scheduler\""),
       "bad.toml:7: sets.gto: 'sm.scheduler' is not key=value"},
      {"TOML syntax", small_sweep("gpus = [", "gpus = [[,"), "bad.toml:2: "},
      {"threads out of range", small_sweep("gpus =", "threads = 0\ngpus ="), "bad.toml:2: threads: expected"},
  };
  for (const Case& c : cases) {
    const fs::path file = write_sweep(dir, "bad.toml", c.text);
    for (const char* launcher : {"local", "slurm"}) {
      const fs::path out = dir / "out";
      const Result r = lockstep("sweep " + quoted(file) + " --launcher " + launcher + " --out " + quoted(out), dir);
      EXPECT_EQ(r.exit_code, 1) << c.what;
      EXPECT_EQ(lines(r.err), 1) << c.what << ": " << r.err;
      EXPECT_NE(r.err.find("lockstep sweep: error: " + (dir / c.expected).string()), std::string::npos)
          << c.what << ": " << r.err;
      EXPECT_FALSE(fs::exists(out)) << c.what << ": the output directory was created";
    }
  }
  // The unbroken file passes the same checks.
  const Result ok = lockstep("sweep " + quoted(write_sweep(dir, "good.toml", small_sweep())) + " --dry-run", dir);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(lines(ok.out), 9) << ok.out;
}

TEST(SweepFile, GlobsNamesAndConfigFilesExpandToPointsInFileOrder) {
  test::ScratchDir dir("sweep");
  const fs::path qv100 = fs::path(LOCKSTEP_SOURCE_DIR) / "configs/gpus/QV100.cfg";
  const fs::path file = write_sweep(dir, "s.toml",
                                    "output = \"out\"\nthreads = 2\ngpus = [\"" + qv100.string() +
                                        "\", \"A100\"]\n[[traces]]\npath = \"" + shared("[lv]*") +
                                        "\"\n[[traces]]\npath = \"" + shared("matrixmul-sm61") +
                                        "\"\nname = \"mm\"\n");
  const Result r = lockstep("sweep " + quoted(file) + " --dry-run", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The glob's matches sorted, then the named trace; the file's GPU named by its stem; no overrides: "default".
  const char* labels[] = {"lud-kernel8-sm70/QV100/default", "lud-kernel8-sm70/A100/default",
                          "vectoradd-sm80/QV100/default",   "vectoradd-sm80/A100/default",
                          "mm/QV100/default",               "mm/A100/default"};
  std::istringstream out(r.out);
  std::string line;
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(std::getline(out, line));
    EXPECT_EQ(line.rfind("point " + std::to_string(i) + " " + labels[i] + ": ", 0), 0u) << line;
    EXPECT_NE(line.find(i % 2 == 0 ? "--config " + qv100.string() : std::string("--gpu A100")), std::string::npos)
        << line;
    EXPECT_NE(line.find("--threads 2 --schedule para1 --stats-json " + (dir / "out").string() + "/" + labels[i] +
                        "/stats.json"),
              std::string::npos)
        << line;
  }
  ASSERT_TRUE(std::getline(out, line));
  EXPECT_EQ(line, "6 points, output " + (dir / "out").string());
  EXPECT_FALSE(fs::exists(dir / "out")) << "--dry-run wrote the output directory";
}

TEST(SweepLocal, SampleSweepGivesOneRowPerKernelAndTotalMatchingLockstepRun) {
  test::ScratchDir dir("sweep");
  const fs::path out = dir / "sweep", csv = dir / "results.csv";
  run_sample_locally(dir, out, csv);
  const auto rows = csv_rows(read_file(csv));
  // 2 traces x 2 GPUs x 2 overrides, each trace one kernel: a kernel row and a total row per point.
  ASSERT_EQ(rows.size(), 1u + 8 * 2);
  const std::vector<std::string> keys = {"trace", "config", "override", "kernel", "kernel_name"};
  ASSERT_GE(rows[0].size(), keys.size() + 10);
  EXPECT_EQ(std::vector<std::string>(rows[0].begin(), rows[0].begin() + 5), keys);
  EXPECT_EQ(rows[0][5], "gpc__cycles_elapsed.max");  // counters in the stats file's order
  // Plan order: traces, then GPUs, then overrides, as the file lists them.
  const char* order[][3] = {{"vectoradd-sm80", "A100", "base"},      {"vectoradd-sm80", "A100", "l1off+gto"},
                            {"vectoradd-sm80", "RTX3070", "base"},   {"vectoradd-sm80", "RTX3070", "l1off+gto"},
                            {"lud-kernel8-sm70", "A100", "base"},    {"lud-kernel8-sm70", "A100", "l1off+gto"},
                            {"lud-kernel8-sm70", "RTX3070", "base"}, {"lud-kernel8-sm70", "RTX3070", "l1off+gto"}};
  for (size_t p = 0; p < 8; ++p)
    for (size_t k = 0; k < 2; ++k) {
      const auto& row = rows[1 + 2 * p + k];
      ASSERT_EQ(row.size(), rows[0].size());
      EXPECT_EQ(row[0], order[p][0]);
      EXPECT_EQ(row[1], order[p][1]);
      EXPECT_EQ(row[2], order[p][2]);
      EXPECT_EQ(row[3], k == 0 ? (p < 4 ? "1" : "8") : "total");
    }
  // The l1off+gto point's numbers are those of the same `lockstep run` made by hand.
  const fs::path direct = dir / "direct.json";
  const Result run = lockstep("run " + quoted(test::shared_traces() / "lud-kernel8-sm70") +
                                  " --gpu A100 --set l1d.cache_global=false --set sm.scheduler=gto --kernels 8 -q "
                                  "--stats-json " + quoted(direct),
                              dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(read_file(direct));
  const auto& total = rows[1 + 2 * 5 + 1];
  size_t filled = 0;
  for (size_t c = 5; c < rows[0].size(); ++c) filled += !total[c].empty();
  EXPECT_EQ(filled, j["total"].size());
  for (const auto& [counter, value] : j["total"].items()) {
    const auto col = std::find(rows[0].begin(), rows[0].end(), counter);
    ASSERT_NE(col, rows[0].end()) << counter;
    EXPECT_EQ(total[size_t(col - rows[0].begin())], value.dump()) << counter;
  }
  // Each point recorded its exact command line and the lockstep version.
  const auto record = nlohmann::json::parse(read_file(out / "lud-kernel8-sm70/A100/l1off+gto/point.json"));
  const std::string version = lockstep("--version", dir).out;
  EXPECT_EQ("lockstep " + record["lockstep_version"].get<std::string>() + "\n", version);
  const std::string line = record["command_line"].get<std::string>();
  // (The sweep resolves a trace path lexically, keeping symlinks as named.)
  EXPECT_NE(line.find(" run " + (fs::absolute(test::shared_traces()).lexically_normal() / "lud-kernel8-sm70").string() +
                      " --gpu A100 --set l1d.cache_global=false --set sm.scheduler=gto --kernels 8 "),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("--stats-json " + (out / "lud-kernel8-sm70/A100/l1off+gto/stats.json").string()),
            std::string::npos)
      << line;

  // A second run resumes: nothing left to run, the results untouched.
  const auto stamp = fs::last_write_time(out / "vectoradd-sm80/A100/base/stats.json");
  const Result again = lockstep("sweep " + quoted(sample_sweep()) + " --out " + quoted(out), dir);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("8 points, 0 to run"), std::string::npos) << again.err;
  EXPECT_EQ(fs::last_write_time(out / "vectoradd-sm80/A100/base/stats.json"), stamp);
  // The same directory cannot take another sweep.
  const Result other = lockstep(
      "sweep " + quoted(write_sweep(dir, "other.toml", small_sweep("\"RTX3070\"]", "\"H100\"]"))) + " --out " + quoted(out),
      dir);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("holds another sweep"), std::string::npos) << other.err;

  // --plot draws a PNG beside the CSV; an unknown counter is an error.
  const Result plot = lockstep("sweep --collect " + quoted(out) + " -o " + quoted(csv) + " --plot ipc", dir);
  EXPECT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(read_file(dir / "results-ipc.png").substr(1, 3), "PNG");
  const Result bad_plot = lockstep("sweep --collect " + quoted(out) + " -o " + quoted(csv) + " --plot no_such", dir);
  EXPECT_EQ(bad_plot.exit_code, 1);
  EXPECT_EQ(lines(bad_plot.err), 1) << bad_plot.err;
  EXPECT_NE(bad_plot.err.find("no counter 'no_such'"), std::string::npos) << bad_plot.err;
}

TEST(SweepLocal, AFailingPointIsRecordedListedAndLeftOutOfTheCsv) {
  test::ScratchDir dir("sweep");
  // vectoradd (sm_80) uses uniform-datapath opcodes QV100 has no unit for: its runs fail at run time.
  const fs::path file = write_sweep(dir, "s.toml",
                                    "output = \"out\"\ngpus = [\"QV100\"]\n[[traces]]\npath = \"" +
                                        shared("vectoradd-sm80") + "\"\n[[traces]]\npath = \"" +
                                        shared("lud-kernel8-sm70") + "\"\n");
  const Result run = lockstep("sweep " + quoted(file) + " --jobs 2", dir);
  EXPECT_EQ(run.exit_code, 1);
  const std::string error = "opcode 'ULDC.64' maps to unit class 'UNIFORM'";
  EXPECT_NE(run.err.find("point 0 vectoradd-sm80/QV100/default failed: exit status 1: lockstep run: error: "),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(error), std::string::npos) << run.err;
  const fs::path failed = dir / "out/vectoradd-sm80/QV100/default";
  EXPECT_FALSE(fs::exists(failed / "stats.json"));
  EXPECT_NE(read_file(failed / "failed.txt").find(error), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "out/lud-kernel8-sm70/QV100/default/stats.json"));

  const Result status = lockstep("sweep --status " + quoted(dir / "out"), dir);
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_NE(status.out.find("2 points: 1 complete, 1 failed"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("point 0 vectoradd-sm80/QV100/default: failed: exit status 1: "), std::string::npos)
      << status.out;

  const Result collect = lockstep("sweep --collect " + quoted(dir / "out") + " -o " + quoted(dir / "r.csv"), dir);
  EXPECT_EQ(collect.exit_code, 1);
  EXPECT_EQ(lines(collect.err), 1) << collect.err;
  EXPECT_NE(collect.err.find("point 0 vectoradd-sm80/QV100/default has no result: exit status 1: "), std::string::npos)
      << collect.err;
  EXPECT_NE(collect.err.find(error), std::string::npos) << collect.err;
  const auto rows = csv_rows(read_file(dir / "r.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][0], "lud-kernel8-sm70");
  EXPECT_EQ(rows[2][3], "total");
}

// A single-node Slurm cluster for one test, stopped by the destructor.
class SlurmCluster {
 public:
  // Empty when it can run here, else why not.
  static std::string unavailable() {
    if (::geteuid() != 0) return "not root: munged and slurmd of a test cluster need root";
    for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel"})
      if (std::system(("command -v " + std::string(tool) + " >/dev/null 2>&1").c_str()) != 0)
        return std::string(tool) + " not installed (scripts/setup.sh installs slurm-wlm and munge)";
    return "";
  }
  explicit SlurmCluster(const test::ScratchDir& scratch) : scratch_(scratch), dir_(scratch / "slurm-cluster") {
    const Result r = shell("bash " + quoted(script()) + " start " + quoted(dir_), scratch_);
    started_ = r.exit_code == 0;
    error_ = r.err;
    if (started_) ::setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);
  }
  ~SlurmCluster() {
    ::unsetenv("SLURM_CONF");
    shell("bash " + quoted(script()) + " stop " + quoted(dir_), scratch_);
  }
  bool started() const { return started_; }
  const std::string& error() const { return error_; }

 private:
  static fs::path script() { return fs::path(LOCKSTEP_SOURCE_DIR) / "scripts/slurm-local.sh"; }
  const test::ScratchDir& scratch_;
  fs::path dir_;
  bool started_ = false;
  std::string error_;
};

// Polls `done` every 50 ms for up to `seconds`.
template <typename Done>
bool eventually(Done done, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

TEST(SweepSlurm, ArrayJobGivesTheCsvOfTheLocalLauncher) {
  if (const std::string why = SlurmCluster::unavailable(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  test::ScratchDir dir("sweep");
  run_sample_locally(dir, dir / "local", dir / "local.csv");

  SlurmCluster cluster(dir);
  ASSERT_TRUE(cluster.started()) << cluster.error();
  const Result submit = lockstep("sweep " + quoted(sample_sweep()) + " --launcher slurm --out " + quoted(dir / "slurm") + " --wait", dir);
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  EXPECT_NE(submit.out.find("submitted 8 of 8 points as Slurm array job "), std::string::npos) << submit.out;
  EXPECT_NE(submit.out.find("(--array=0-7;"), std::string::npos) << submit.out;
  // The job script: one task per point, --cpus-per-task = threads per point.
  const std::string script = read_file(dir / "slurm/slurm/sweep.sh");
  EXPECT_NE(script.find("#SBATCH --cpus-per-task=1\n"), std::string::npos) << script;
  const auto jobs = nlohmann::json::parse(read_file(dir / "slurm/slurm/jobs.json"));
  ASSERT_EQ(jobs["jobs"].size(), 1u);
  EXPECT_EQ(jobs["jobs"][0]["tasks"], "0-7");
  // Every task ran under Slurm: its log is named after the recorded job.
  const std::string job = jobs["jobs"][0]["job"];
  for (int task = 0; task < 8; ++task)
    EXPECT_TRUE(fs::exists(dir / "slurm/slurm" / ("task-" + job + "_" + std::to_string(task) + ".out"))) << task;

  const Result status = lockstep("sweep --status " + quoted(dir / "slurm"), dir);
  EXPECT_EQ(status.exit_code, 0) << status.out;
  EXPECT_NE(status.out.find("8 points: 8 complete"), std::string::npos) << status.out;
  const Result collect = lockstep("sweep --collect " + quoted(dir / "slurm") + " -o " + quoted(dir / "slurm.csv"), dir);
  ASSERT_EQ(collect.exit_code, 0) << collect.err;
  EXPECT_EQ(read_file(dir / "slurm.csv"), read_file(dir / "local.csv"));
}

TEST(SweepSlurm, CancelledTaskLeavesNoJsonAndResubmitCompletesIt) {
  if (const std::string why = SlurmCluster::unavailable(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  test::ScratchDir dir("sweep");
  // Point 1 simulates 0.5 M warp instructions (over a second), long enough to be cancelled mid-run.
  const Result gen = lockstep("gen vecadd -o " + quoted(dir / "vecadd") + " --size 500K --quiet", dir);
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const fs::path file = write_sweep(dir, "fault.toml",
                                    "output = \"local\"\ngpus = [\"QV100\"]\n[[traces]]\npath = \"" +
                                        shared("lud-kernel8-sm70") + "\"\n[[traces]]\npath = \"vecadd\"\n");
  ASSERT_EQ(lockstep("sweep " + quoted(file) + " --jobs 2", dir).exit_code, 0);
  ASSERT_EQ(lockstep("sweep --collect " + quoted(dir / "local") + " -o " + quoted(dir / "local.csv"), dir).exit_code, 0);

  SlurmCluster cluster(dir);
  ASSERT_TRUE(cluster.started()) << cluster.error();
  const fs::path out = dir / "slurm";
  const Result submit = lockstep("sweep " + quoted(file) + " --launcher slurm --out " + quoted(out), dir);
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::string job = nlohmann::json::parse(read_file(out / "slurm/jobs.json"))["jobs"][0]["job"];
  const std::string task = job + "_1";
  const fs::path point = out / "vecadd/QV100/default";
  // Cancel task 1 once it runs and its lockstep run has started.
  ASSERT_TRUE(eventually(
      [&] {
        const Result q = shell("squeue -h -r -j " + job + " -o '%i %T'", dir);
        return q.out.find(task + " RUNNING") != std::string::npos && fs::exists(point / "point.json");
      },
      60))
      << shell("squeue -r", dir).out;
  ASSERT_EQ(shell("scancel " + task, dir).exit_code, 0);
  ASSERT_TRUE(eventually([&] { return shell("squeue -h -j " + job, dir).out.empty(); }, 60))
      << shell("squeue -r", dir).out;
  ASSERT_TRUE(fs::exists(out / "lud-kernel8-sm70/QV100/default/stats.json"));
  // No JSON, whole or half-written, under any name.
  for (const auto& e : fs::directory_iterator(point))
    EXPECT_EQ(e.path().filename().string().find("stats"), std::string::npos) << "left behind: " << e.path();

  const Result status = lockstep("sweep --status " + quoted(out), dir);
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_NE(status.out.find("2 points: 1 complete, 0 failed, 0 running, 0 pending, 1 without a result"),
            std::string::npos)
      << status.out;
  EXPECT_NE(status.out.find("point 1 vecadd/QV100/default: no result (started; stopped before it ended); Slurm: "
                            "CANCELLED (task " + task + ")"),
            std::string::npos)
      << status.out;
  // The CSV so far lacks the cancelled point, which collect lists.
  const Result partial = lockstep("sweep --collect " + quoted(out) + " -o " + quoted(dir / "partial.csv"), dir);
  EXPECT_EQ(partial.exit_code, 1);
  EXPECT_NE(partial.err.find("point 1 vecadd/QV100/default has no result"), std::string::npos) << partial.err;

  const Result resubmit = lockstep("sweep --resubmit " + quoted(out) + " --wait", dir);
  ASSERT_EQ(resubmit.exit_code, 0) << resubmit.out << resubmit.err;
  EXPECT_NE(resubmit.out.find("submitted 1 of 2 points"), std::string::npos) << resubmit.out << resubmit.err;
  EXPECT_NE(resubmit.out.find("(--array=1;"), std::string::npos) << resubmit.out;
  EXPECT_EQ(lockstep("sweep --status " + quoted(out), dir).exit_code, 0);
  const Result collect = lockstep("sweep --collect " + quoted(out) + " -o " + quoted(dir / "slurm.csv"), dir);
  ASSERT_EQ(collect.exit_code, 0) << collect.err;
  EXPECT_EQ(read_file(dir / "slurm.csv"), read_file(dir / "local.csv"));
}

}  // namespace
}  // namespace lockstep
