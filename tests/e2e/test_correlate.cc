// lockstep correlate end to end on hand-written inputs: an Nsight Compute CSV
// as ncu writes it (==PROF== lines and application output before the header,
// every field quoted, a units row, thousands separators, a kernel name with
// commas inside quotes, two kernels of one name, a kernel only on the
// hardware side) against two stats files (a kernel only on the simulated
// side). Expected figures are derived here from the fixture's numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/cli_runner.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

const char* kNcuCsv =
    "==PROF== Connected to process 4242 (/home/user/app)\n"
    "app: starting, \"Kernel Name\" and ID appear in this line of the application's output\n"
    "==PROF== Profiling \"vectorAdd\" - 0: 0%....50%....100% - 9 passes\n"
    "==PROF== Disconnected from process 4242\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"gpc__cycles_elapsed.max\",\"smsp__inst_executed.sum\",\"dram__sectors_read.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"cycle\",\"inst\",\"sector\"\n"
    "\"0\",\"4242\",\"app\",\"host\",\"vectorAdd(const float *, const float *, float *, int)\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(196, 1, 1)\",\"0\",\"8.0\",\"1,000\",\"2,000\",\"100\"\n"
    "\"1\",\"4242\",\"app\",\"host\",\"scale\",\"1\",\"7\",\"(128, 1, 1)\",\"(4, 1, 1)\",\"0\",\"8.0\",\"500\",\"400\",\"0\"\n"
    "\"2\",\"4242\",\"app\",\"host\",\"vectorAdd(const float *, const float *, float *, int)\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(196, 1, 1)\",\"0\",\"8.0\",\"2,000\",\"4,000\",\"200\"\n"
    "\"3\",\"4242\",\"app\",\"host\",\"onlyonhw\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"8.0\",\"300\",\"10\",\"0\"\n";

// sim1: vectorAdd (launch 1), scale; sim2 (cache_control all): vectorAdd (launch 2), a kernel only here.
const char* kSim1 =
    R"({"producer": {"tool": "lockstep"}, "gpu": "A100", "kernels": [
 {"id": 1, "name": "_Z9vectorAddPKfS0_Pfi", "truncated": false, "stats": {"gpc__cycles_elapsed.max": 1100,
  "smsp__inst_executed.sum": 2000, "ipc": 1.8, "dram__sectors_read.sum": 90}},
 {"id": 2, "name": "_Z5scalePfi", "truncated": false, "stats": {"gpc__cycles_elapsed.max": 400,
  "smsp__inst_executed.sum": 400, "ipc": 1.0, "dram__sectors_read.sum": 0}}], "total": {}})";
const char* kSim2 =
    R"({"producer": {"tool": "lockstep"}, "gpu": "A100", "cache_control": "all", "kernels": [
 {"id": 1, "name": "_Z9vectorAddPKfS0_Pfi", "truncated": false, "stats": {"gpc__cycles_elapsed.max": 1800,
  "smsp__inst_executed.sum": 4000, "ipc": 2.2, "dram__sectors_read.sum": 220}},
 {"id": 2, "name": "_Z8onlysimv", "truncated": false, "stats": {"gpc__cycles_elapsed.max": 10,
  "smsp__inst_executed.sum": 1, "ipc": 0.1}}], "total": {}})";

struct Fixture {
  test::ScratchDir dir{"correlate"};
  Fixture() {
    write(dir / "ncu.csv", kNcuCsv);
    write(dir / "sim1.json", kSim1);
    write(dir / "sim2.json", kSim2);
  }
  std::string path(const std::string& name) const {
    std::string quoted(1, '\'');
    quoted += (dir / name).string();
    quoted += '\'';
    return quoted;
  }
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / x.size(), my += y[i] / y.size();
  double c = 0, vx = 0, vy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    c += (x[i] - mx) * (y[i] - my);
    vx += (x[i] - mx) * (x[i] - mx);
    vy += (y[i] - my) * (y[i] - my);
  }
  return c / std::sqrt(vx * vy);
}

std::string fixed(const char* spec, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

TEST(Correlate, NcuCsvAgainstTwoStatsFilesGivesTheDocumentedTables) {
  Fixture f;
  const Result r = lockstep_cmd("correlate --hw " + f.path("ncu.csv") + " " + f.path("sim1.json") + " " +
                                    f.path("sim2.json") + " --hw-cache-control all --csv " + f.path("csv") +
                                    " --plots " + f.path("plots"),
                                f.dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Matching: vectorAdd launch 1 -> sim1, scale -> sim1, vectorAdd launch 2 -> sim2; one left on each side.
  EXPECT_NE(r.out.find("matched 3 kernel(s) by name and launch order"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hardware kernel 'onlyonhw'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("simulated kernel '_Z8onlysimv'"), std::string::npos) << r.out;
  // sim1 has no cache_control (older files: caches kept = none), the hardware's is all: one warning line.
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("warning: the hardware counters are from --cache-control all, 1 simulated run(s) from none"),
            std::string::npos)
      << r.err;

  // Per counter, from the fixture: cycles hw (1000, 500, 2000) sim (1100, 400, 1800): errors +10%, -20%, -10%.
  const std::string counters = read_text(f.dir / "csv" / "counters.csv");
  const double cycles_mae = (10.0 + 20.0 + 10.0) / 3;
  const double cycles_r = pearson({1000, 500, 2000}, {1100, 400, 1800});
  EXPECT_NE(counters.find("gpc__cycles_elapsed.max,3,mae_pct," + fixed("%.6f", cycles_mae) + "," +
                          fixed("%.6f", cycles_r) + ",2\n"),
            std::string::npos)
      << counters;
  EXPECT_NE(counters.find("smsp__inst_executed.sum,3,mae_pct,0.000000,1.000000,3\n"), std::string::npos) << counters;
  // IPC: the hardware's is instructions / cycles (2, 0.8, 2) against 1.8, 1.0, 2.2: 10%, 25%, 10% off.
  EXPECT_NE(counters.find("ipc,3,mae_pct," + fixed("%.6f", (10.0 + 25.0 + 10.0) / 3)), std::string::npos) << counters;
  // DRAM reads hw (100, 0, 200) sim (90, 0, 220): NRMSE = sqrt((100 + 0 + 400) / 3) / mean(100, 0, 200).
  EXPECT_NE(counters.find("dram__sectors_read.sum,3,nrmse," + fixed("%.6f", std::sqrt(500.0 / 3) / 100.0) + "," +
                          fixed("%.6f", pearson({100, 0, 200}, {90, 0, 220})) + ",3\n"),
            std::string::npos)
      << counters;
  // The same in the text table.
  EXPECT_NE(r.out.find("MAE " + fixed("%.2f", cycles_mae) + "%"), std::string::npos) << r.out;

  // Per kernel: the second vectorAdd (ID 2) is paired with sim2's, the quoted name read whole.
  const std::string kernels = read_text(f.dir / "csv" / "kernels.csv");
  EXPECT_NE(kernels.find("3,\"vectorAdd(const float *, const float *, float *, int)\","), std::string::npos) << kernels;
  EXPECT_NE(kernels.find("sim2.json kernel 1,gpc__cycles_elapsed.max,2000,1800,-10.000000\n"), std::string::npos)
      << kernels;
  EXPECT_NE(kernels.find("sim1.json kernel 1,gpc__cycles_elapsed.max,1000,1100,10.000000\n"), std::string::npos)
      << kernels;
  EXPECT_NE(kernels.find("2,scale,"), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("onlyonhw"), std::string::npos) << kernels;

  // One PNG per counter compared; a zero value (scale's DRAM reads) is left off the log axes.
  for (const char* counter : {"gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "ipc", "dram__sectors_read.sum"}) {
    const fs::path png = f.dir / "plots" / (std::string(counter) + ".png");
    ASSERT_TRUE(fs::exists(png)) << png;
    const std::string bytes = read_text(png);
    EXPECT_GT(bytes.size(), 2000u) << png;
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(f.dir / "plots"), fs::directory_iterator()), 4);
}

TEST(Correlate, UnknownHardwareCacheControlIsOneWarning) {
  Fixture f;
  const Result r = lockstep_cmd("correlate --hw " + f.path("ncu.csv") + " " + f.path("sim1.json"), f.dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("does not say how its caches were handled"), std::string::npos) << r.err;
  // Matching the same settings: no warning.
  const Result same = lockstep_cmd(
      "correlate --hw " + f.path("ncu.csv") + " " + f.path("sim2.json") + " --hw-cache-control all", f.dir);
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.err, "");
}

TEST(Correlate, GtFileMatchesByLaunchOrder) {
  Fixture f;
  fs::create_directories(f.dir / "trace");
  write(f.dir / "trace" / "gt", "1650\n");
  // A directory stands for its gt file; the one hardware kernel pairs with the first simulated one.
  const Result r = lockstep_cmd("correlate --hw " + f.path("trace") + " " + f.path("sim1.json") + " --csv " +
                                    f.path("csv") + " --hw-cache-control none",
                                f.dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("matched 1 kernel(s) by launch order"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("simulated kernel '_Z5scalePfi'"), std::string::npos) << r.out;
  const std::string kernels = read_text(f.dir / "csv" / "kernels.csv");
  EXPECT_NE(kernels.find(",gpc__cycles_elapsed.max,1650,1100," + fixed("%.6f", 100.0 * (1100.0 - 1650) / 1650)),
            std::string::npos)
      << kernels;
}

// Bad input: one line on stderr naming the file (and line / column), exit 1, nothing written.
void expect_rejected(const Fixture& f, const std::string& hw, const std::string& stats, const std::string& message) {
  const Result r = lockstep_cmd("correlate --hw " + f.path(hw) + " " + f.path(stats) + " --csv " + f.path("csv") +
                                    " --plots " + f.path("plots") + " --hw-cache-control all",
                                f.dir);
  EXPECT_EQ(r.exit_code, 1) << hw << " " << stats;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(f.dir / "csv"));
  EXPECT_FALSE(fs::exists(f.dir / "plots"));
}

TEST(Correlate, BadInputsAreOneLineErrorsWithNoOutput) {
  Fixture f;
  std::string text = kNcuCsv;
  // Without the "Kernel Name" column there is no header.
  std::string no_name = text;
  for (size_t p; (p = no_name.find("\"Kernel Name\",")) != std::string::npos;) no_name.erase(p, 14);
  write(f.dir / "noname.csv", no_name);
  expect_rejected(f, "noname.csv", "sim1.json", "noname.csv: no Nsight Compute CSV header");
  // A non-numeric value in a metric column.
  std::string word = text;
  word.replace(word.find("\"2,000\",\"4,000\""), 7, "\"lots\"");
  write(f.dir / "word.csv", word);
  expect_rejected(f, "word.csv", "sim1.json", "word.csv line 9, column gpc__cycles_elapsed.max: 'lots' is not a number");
  // A row with a field missing.
  std::string short_row = text;
  short_row.replace(short_row.find(",\"300\""), 6, "");
  write(f.dir / "short.csv", short_row);
  expect_rejected(f, "short.csv", "sim1.json", "short.csv line 10: 13 fields, the header has 14");
  // An unterminated quote.
  write(f.dir / "quote.csv", text + "\"4\",\"4242\",\"app\n");
  expect_rejected(f, "quote.csv", "sim1.json", "quote.csv: malformed CSV");
  // Unreadable files on either side; a stats file that is not JSON; a gt file with a word.
  expect_rejected(f, "missing.csv", "sim1.json", "missing.csv: cannot open");
  expect_rejected(f, "ncu.csv", "missing.json", "missing.json: cannot open");
  write(f.dir / "broken.json", "{\"kernels\": [");
  expect_rejected(f, "ncu.csv", "broken.json", "broken.json: not JSON");
  write(f.dir / "gt", "1650 12x\n");
  expect_rejected(f, "gt", "sim1.json", "gt line 1: '12x' is not a whole number of cycles");
  // No kernel in common.
  write(f.dir / "other.json", R"({"kernels": [{"id": 1, "name": "_Z5otherv", "stats": {"gpc__cycles_elapsed.max": 5}}]})");
  expect_rejected(f, "ncu.csv", "other.json", "no hardware kernel matched a simulated one");
}

}  // namespace
}  // namespace lockstep
