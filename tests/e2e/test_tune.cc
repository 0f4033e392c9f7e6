// lockstep tune end to end. fit: "hardware" cycles made by lockstep itself
// with a hidden config (three latencies and the kernel start cost changed) on
// small generated microbenchmarks are fitted back from the default config. import: a fixture of
// Accel-Sim microbenchmark output lines.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/e2e/cli_runner.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

std::string quoted(const fs::path& p) {
  std::string q(1, '\'');
  q += p.string();
  q += '\'';
  return q;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "key = value" lines of a config overlay, by section.key.
std::map<std::string, std::string> overlay_values(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line, section;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    if (line.size() > 2 && line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    std::string value = line.substr(eq + 3);
    value.erase(value.find_last_not_of(' ') + 1);
    out[section + "." + line.substr(0, eq)] = value;
  }
  return out;
}

// The microbenchmarks, each isolating one fitted key beside the kernel's
// fixed costs: a dependent FFMA chain (unit.SP.latency), a pointer chase that
// hits in the L2 (l2.latency), a shared-memory chase (sm.shared_latency) and
// an empty kernel (launch.kernel_start_cycles). Small sizes on one SM.
struct Microbenchmark {
  const char* workload;
  const char* size;
};
const Microbenchmark kWorkloads[] = {
    {"ffma_chain", "320"}, {"pchase_l2", "160"}, {"pchase_shared", "160"}, {"empty_kernel", "8"}};
const char* kBase = "--gpu QV100 --set gpu.sms=1";
// The hidden config: three latencies and the kernel start cost away from QV100's
// (l2.latency 160, sm.shared_latency 20, unit.SP.latency 2, launch.kernel_start_cycles 1200).
const std::map<std::string, double> kHidden = {
    {"l2.latency", 184}, {"sm.shared_latency", 26}, {"unit.SP.latency", 4}, {"launch.kernel_start_cycles", 1530}};
const std::map<std::string, std::string> kDefault = {
    {"l2.latency", "160"}, {"sm.shared_latency", "20"}, {"unit.SP.latency", "2"}, {"launch.kernel_start_cycles", "1200"}};
const char* kParams =
    "--param l2.latency=100:300 --param sm.shared_latency=5:60 --param unit.SP.latency=1:12 "
    "--param launch.kernel_start_cycles=0:4000";
constexpr int kMaxRuns = 40;

// Writes each microbenchmark's trace with a gt file of its kernel cycles under
// `hidden` (--set arguments); returns the traces' quoted paths.
std::string make_hardware_traces(const test::ScratchDir& dir, const std::string& hidden) {
  std::string traces;
  for (const Microbenchmark& m : kWorkloads) {
    const fs::path trace = dir / m.workload;
    EXPECT_EQ(lockstep_cmd(std::string("gen ") + m.workload + " -o " + quoted(trace) + " --size " + m.size + " --sms 1 -q", dir)
                  .exit_code,
              0);
    // The "hardware": this trace's kernel cycles under the hidden config, one per line in its gt file.
    const fs::path json = dir / (std::string(m.workload) + ".json");
    const Result run = lockstep_cmd("run " + quoted(trace) + " " + kBase + hidden + " -q --stats-json " + quoted(json), dir);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::string gt;
    const nlohmann::json stats = nlohmann::json::parse(read_text(json));
    for (const auto& k : stats["kernels"])
      gt += std::to_string(k["stats"]["gpc__cycles_elapsed.max"].get<uint64_t>()) + "\n";
    write(trace / "gt", gt);
    traces += ' ';
    traces += quoted(trace);
  }
  return traces;
}

TEST(TuneFit, RecoversThreeLatenciesAndTheKernelStartCostFromTheDefaultConfig) {
  test::ScratchDir dir("tune-fit");
  std::string hidden;
  for (const auto& [key, value] : kHidden) hidden += " --set " + key + "=" + std::to_string(int(value));
  const std::string traces = make_hardware_traces(dir, hidden);
  std::string overlays[2];
  for (int jobs : {1, 2}) {
    const fs::path out = dir / ("fit" + std::to_string(jobs) + ".cfg");
    const Result r = lockstep_cmd("tune fit" + traces + " " + kBase + " " + kParams + " --max-runs " +
                                      std::to_string(kMaxRuns) + " --jobs " + std::to_string(jobs) + " -o " + quoted(out) +
                                      " --csv " + quoted(dir / "fit.csv"),
                                  dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // From the default config's values.
    for (const auto& [key, value] : kDefault)
      EXPECT_NE(r.out.find(key + ": " + value + " ->"), std::string::npos) << r.out;
    std::smatch runs;
    ASSERT_TRUE(std::regex_search(r.out, runs, std::regex("in ([0-9]+) runs"))) << r.out;
    EXPECT_LE(std::stoi(runs[1]), kMaxRuns);
    overlays[jobs - 1] = read_text(out);
  }
  // The search does not depend on the number of simulations run at once.
  EXPECT_EQ(overlays[0], overlays[1]);
  const auto fitted = overlay_values(overlays[0]);
  for (const auto& [key, value] : kHidden) {
    ASSERT_TRUE(fitted.count(key)) << key << "\n" << overlays[0];
    EXPECT_NEAR(std::stod(fitted.at(key)), value, 0.02 * value) << key << "\n" << overlays[0];
  }
  // The overlay is a config the simulator takes.
  const Result check = lockstep_cmd("config --gpu QV100 --config " + quoted(dir / "fit1.cfg"), dir);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(read_text(dir / "fit.csv").find("kernel,hardware_source,hardware_cycles,before_cycles"), std::string::npos);
}

// 4316 -> "4,316", as ncu writes numbers in its CSV.
std::string with_thousands(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// --hw NCU.csv: the hardware cycles of all traces' kernels, in launch order,
// from an Nsight Compute CSV (==PROF== lines before the header, a units row,
// quoted fields, demangled names, numbers with thousands separators, a kernel
// the traces do not have) instead of gt files.
TEST(TuneFit, FitsToAnNsightComputeCsv) {
  test::ScratchDir dir("tune-fit-ncu");
  const std::map<std::string, int> hidden = {{"unit.SP.latency", 4}, {"sm.shared_latency", 26}};
  std::string sets, traces;
  for (const auto& [key, value] : hidden) sets += " --set " + key + "=" + std::to_string(value);
  struct Kernel {
    const char* workload;
    const char* demangled;
  };
  const Kernel kernels[] = {{"ffma_chain", "ffmaChain(float *, int)"}, {"pchase_shared", "pchaseShared(unsigned int *, int)"}};
  std::string csv =
      "==PROF== Connected to process 4242 (/home/user/ubench)\n"
      "==PROF== Profiling \"ffmaChain\" - 0: 0%....50%....100% - 9 passes\n"
      "==PROF== Disconnected from process 4242\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"gpc__cycles_elapsed.max\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"cycle\"\n";
  int id = 0;
  for (const Kernel& k : kernels) {
    const fs::path trace = dir / k.workload;
    ASSERT_EQ(lockstep_cmd(std::string("gen ") + k.workload + " -o " + quoted(trace) + " --size 160 --sms 1 -q", dir).exit_code,
              0);
    const fs::path json = dir / (std::string(k.workload) + ".json");
    ASSERT_EQ(lockstep_cmd("run " + quoted(trace) + " " + kBase + sets + " -q --stats-json " + quoted(json), dir).exit_code, 0);
    const uint64_t cycles =
        nlohmann::json::parse(read_text(json))["kernels"][0]["stats"]["gpc__cycles_elapsed.max"].get<uint64_t>();
    csv += "\"" + std::to_string(id++) + "\",\"4242\",\"ubench\",\"host\",\"" + k.demangled +
           "\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"7.0\",\"" + with_thousands(cycles) + "\"\n";
    traces += ' ';
    traces += quoted(trace);
  }
  csv += "\"2\",\"4242\",\"ubench\",\"host\",\"onlyOnHardware()\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"7.0\",\"1,000\"\n";
  write(dir / "hw.csv", csv);
  const Result r = lockstep_cmd("tune fit" + traces + " " + kBase +
                                    " --param unit.SP.latency=1:12 --param sm.shared_latency=5:60 --hw " +
                                    quoted(dir / "hw.csv") + " --jobs 2 -o " + quoted(dir / "fit.cfg"),
                                dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(converged)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not compared: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("onlyOnHardware"), std::string::npos) << r.out;
  // Both kernels compared, each against its own row.
  EXPECT_NE(r.out.find("_Z9ffmaChainPfi"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("_Z12pchaseSharedPji"), std::string::npos) << r.out;
  const auto fitted = overlay_values(read_text(dir / "fit.cfg"));
  for (const auto& [key, value] : hidden) {
    ASSERT_TRUE(fitted.count(key)) << key;
    EXPECT_EQ(fitted.at(key), std::to_string(value)) << key << "\n" << r.out;
  }
}

TEST(TuneFit, BadInputsAreOneLineErrors) {
  test::ScratchDir dir("tune-fit-bad");
  ASSERT_EQ(lockstep_cmd("gen reduce -o " + quoted(dir / "t") + " --size 300 --sms 1 -q", dir).exit_code, 0);
  // No gt file beside the trace.
  Result r = lockstep_cmd("tune fit " + quoted(dir / "t") + " " + kBase + " --param l2.latency=100:300 -o " +
                              quoted(dir / "o.cfg"),
                          dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/gt: cannot open"), std::string::npos) << r.err;
  write(dir / "t" / "gt", "1000\n");
  // A range that is not LOW:HIGH; a key the config does not have.
  r = lockstep_cmd("tune fit " + quoted(dir / "t") + " " + kBase + " --param l2.latency=300", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("expected KEY=LOW:HIGH"), std::string::npos) << r.err;
  r = lockstep_cmd("tune fit " + quoted(dir / "t") + " " + kBase + " --param l2.no_such_key=1:3 -o " + quoted(dir / "o.cfg"), dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("unknown config key 'l2.no_such_key'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "o.cfg"));
}

const char* kMicrobenchmarks =
    "Device Name = NVIDIA TITAN V\n"
    "-gpgpu_n_clusters 80\n"
    "-gpgpu_n_cores_per_cluster 1\n"
    "-gpgpu_shader_registers 65536\n"
    "-gpgpu_num_sched_per_core 4\n"
    "-gpgpu_l1_latency 33\n"
    "-gpgpu_unified_l1d_size 128\n"
    "-gpgpu_cache:dl1 S:4:128:256,L:T:m:L:L,A:384:48,16:0,32\n"
    "-gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,A:192:4,32:0,32\n"
    "-trace_opcode_latency_initiation_sp 4,1\n"
    "-trace_opcode_latency_initiation_spec_op_3 4,4\n"
    "-gpgpu_num_sp_units 4\n"
    "-gpgpu_n_mem 32\n"
    "-icnt_flit_size 40\n"
    "-gpgpu_memory_partition_indexing 2\n"
    "-gpgpu_max_insn_issue_per_warp 2\n";

TEST(TuneImport, MapsKnownOptionsAndListsTheRest) {
  test::ScratchDir dir("tune-import");
  write(dir / "ubench.txt", kMicrobenchmarks);
  const Result r = lockstep_cmd("tune import " + quoted(dir / "ubench.txt") + " -o " + quoted(dir / "ov.cfg"), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto v = overlay_values(read_text(dir / "ov.cfg"));
  const std::map<std::string, std::string> expected = {
      {"gpu.sms", "80"},           {"gpu.sms_per_cluster", "1"},  {"sm.registers", "65536"},
      {"sm.subcores", "4"},        {"l1d.hit_latency", "33"},     {"sm.unified_l1_shared_kb", "128"},
      {"l1d.sets", "4"},           {"l1d.line_bytes", "128"},     {"l1d.ways", "256"},
      {"l1d.mshr_entries", "384"}, {"l1d.mshr_max_merge", "48"},  {"l1d.miss_queue", "16"},
      {"l2.sets", "32"},           {"l2.ways", "24"},             {"l2.mshr_entries", "192"},
      {"l2.mshr_max_merge", "4"},  {"l2.miss_queue", "32"},       {"unit.SP.latency", "4"},
      {"unit.SP.initiation", "1"}, {"unit.SP.per_subcore", "1"},  {"dram.channels", "32"},
      {"icnt.flit_bytes", "40"},   {"l2.partition_hash", "ipoly"}, {"l2.line_bytes", "128"}};
  EXPECT_EQ(v, expected);
  EXPECT_NE(read_text(dir / "ov.cfg").find("# Device Name = NVIDIA TITAN V"), std::string::npos);
  EXPECT_NE(r.out.find("not mapped (2):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-trace_opcode_latency_initiation_spec_op_3 4,4 (line 11)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-gpgpu_max_insn_issue_per_warp 2 (line 16)"), std::string::npos) << r.out;
  // The overlay loads over a GPU and changes what it says.
  const Result c = lockstep_cmd("config --gpu QV100 --config " + quoted(dir / "ov.cfg") + " --dump", dir);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("hit_latency = 33"), std::string::npos);
}

TEST(TuneImport, BadLinesAreOneLineErrorsEachAndNothingIsWritten) {
  test::ScratchDir dir("tune-import-bad");
  write(dir / "bad.txt", std::string(kMicrobenchmarks) +
                             "-gpgpu_l1_latency abc\nrunning l1_lat...\n-gpgpu_n_mem\n-gpgpu_cache:dl1 S:4:128\n");
  const Result r = lockstep_cmd("tune import " + quoted(dir / "bad.txt") + " -o " + quoted(dir / "ov.cfg"), dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 4) << r.err;
  EXPECT_NE(r.err.find("bad.txt line 17: -gpgpu_l1_latency: 'abc' is not a whole number\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad.txt line 18: not an option line"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad.txt line 19: -gpgpu_n_mem has no value\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad.txt line 20: -gpgpu_cache:dl1: 'S:4:128' is not a cache spec"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "ov.cfg"));
  // An unreadable file.
  const Result missing = lockstep_cmd("tune import " + quoted(dir / "none.txt"), dir);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(lines(missing.err), 1) << missing.err;
  EXPECT_NE(missing.err.find("none.txt: cannot open"), std::string::npos);
}

}  // namespace
}  // namespace lockstep
