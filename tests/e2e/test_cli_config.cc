// GPU configs from the command line: a newer trace on an older GPU says how to
// fix it and the shipped overlay does; the documented --set examples work, a
// --set that conflicts names both keys, and a failed --dump writes nothing;
// random overrides either run or stop with one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/e2e/cli_runner.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

std::string kernel_line(const std::string& out) {
  const size_t at = out.find("  kernel 1 ");
  return at == std::string::npos ? "(no kernel line)" : out.substr(at, out.find('\n', at) - at);
}

TEST(CliConfig, AnSm80TraceOnVoltaSaysHowToDeclareTheUniformUnitAndEachWayWorks) {
  test::ScratchDir dir("cli-config");
  const std::string run = "run '" + (test::shared_traces() / "vectoradd-sm80").string() + "' --perfect-memory --gpu QV100";
  const Result bad = lockstep_cmd(run, dir);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("unit class 'UNIFORM', which this GPU config does not declare (sm.units); declare it: "
                         "--set sm.units=SP,INT,DP,SFU,TENSOR,BRANCH,TEX,UNIFORM"),
            std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("--config configs/presets/uniform-unit.cfg"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--set isa.extra=ULDC:CLASS (CLASS one of SP,INT,"), std::string::npos) << bad.err;

  const Result declared = lockstep_cmd(run + " --set sm.units=SP,INT,DP,SFU,TENSOR,BRANCH,TEX,UNIFORM", dir);
  ASSERT_EQ(declared.exit_code, 0) << declared.err;
  const Result preset = lockstep_cmd(
      run + " --config '" + (std::filesystem::path(LOCKSTEP_SOURCE_DIR) / "configs/presets/uniform-unit.cfg").string() + "'",
      dir);
  ASSERT_EQ(preset.exit_code, 0) << preset.err;
  EXPECT_NE(preset.out.find("lockstep run on QV100 (80 SMs)"), std::string::npos) << preset.out;
  // The overlay gives UNIFORM the timings a --set declaration gets by default (1 per sub-core, 4, 1).
  EXPECT_EQ(kernel_line(preset.out), kernel_line(declared.out));
  EXPECT_NE(kernel_line(preset.out).find("26601 warp insts"), std::string::npos) << preset.out;
}

TEST(CliConfig, TheDocumentedSetExamplesWorkAndConflictsNameBothKeys) {
  test::ScratchDir dir("cli-config");
  // configs/README.md
  const Result dumped = lockstep_cmd("config --gpu a100 --set sm.max_warps=32 --dump -o '" + (dir / "mine.cfg").string() + "'", dir);
  ASSERT_EQ(dumped.exit_code, 0) << dumped.err;
  std::ifstream in(dir / "mine.cfg");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("\nmax_threads = 1024"), std::string::npos);
  EXPECT_NE(text.find("\nmax_warps = 32"), std::string::npos);
  const Result loaded = lockstep_cmd("config --config '" + (dir / "mine.cfg").string() + "'", dir);
  EXPECT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_NE(loaded.out.find("32 warps"), std::string::npos) << loaded.out;
  // run --help's example, on the trace's own GPU (A100: 64 warps, 2048 threads)
  const Result run = lockstep_cmd(
      "run '" + (test::shared_traces() / "vectoradd-sm80").string() + "' --perfect-memory --set sm.max_warps=48", dir);
  EXPECT_EQ(run.exit_code, 0) << run.err;

  const Result conflict = lockstep_cmd("config --gpu QV100 --set sm.max_threads=4096 --dump -o '" + (dir / "bad.cfg").string() + "'", dir);
  EXPECT_EQ(conflict.exit_code, 1);
  EXPECT_EQ(lines(conflict.err), 1) << conflict.err;
  EXPECT_NE(conflict.err.find("--set sm.max_threads=4096 conflicts with sm.max_warps = 64 from "), std::string::npos)
      << conflict.err;
  EXPECT_NE(conflict.err.find("QV100.cfg: sm.max_threads = 4096: more than sm.max_warps * 32 = 2048 threads (--set it too)"),
            std::string::npos)
      << conflict.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.cfg"));
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

// Any mix of overrides, sensible, odd or impossible, on any model and thread
// count: the run finishes with its statistics, or stops with one line saying
// what (exit 1) and writes no statistics; never a crash or a hang. (A fixed
// seed: the same 24 runs every time; the ASan+UBSan stage runs them too.)
TEST(CliConfig, RandomOverridesEitherRunOrStopWithOneLine) {
  test::ScratchDir dir("cli-config-random");
  for (const char* w : {"graph", "stencil2d"})
    ASSERT_EQ(lockstep_cmd(std::string("gen ") + w + " --size 8K -q -o '" + (dir / w).string() + "'", dir).exit_code, 0);
  const std::vector<std::pair<std::string, std::vector<std::string>>> keys = {
      {"gpu.sms", {"1", "3", "7", "80"}},
      {"sm.subcores", {"0", "1", "3", "4"}},
      {"sm.max_warps", {"4", "17", "64"}},
      {"sm.max_blocks", {"1", "2", "32"}},
      {"sm.issue_width", {"1", "2", "4"}},
      {"sm.scheduler", {"lrr", "gto", "two_level", "fifo"}},
      {"sm.collector_units", {"1", "8"}},
      {"sm.coalesce_threads", {"1", "4", "32"}},
      {"sm.ibuffer_entries", {"1", "4"}},
      {"sm.gating", {"true", "false"}},
      {"l1d.sets", {"1", "3", "4", "64"}},
      {"l1d.ways", {"1", "3", "64", "256"}},
      {"l1d.adaptive", {"true", "false"}},
      {"l1d.mshr_entries", {"1", "8"}},
      {"l2.sets", {"1", "8", "256"}},
      {"l2.ways", {"0", "1", "7", "40"}},
      {"l2.subpartitions", {"1", "4"}},
      {"l2.set_hash", {"linear", "ipoly", "xor"}},
      {"l2.mshr_entries", {"1", "4"}},
      {"dram.channels", {"1", "3", "8"}},
      {"dram.sched_queue", {"1", "8"}},
      {"dram.page_policy", {"open", "closed"}},
      {"icnt.out_buffer", {"8", "512"}},
  };
  std::mt19937 rng(20261129);
  const char* models[] = {"cycle", "memory", "abstract"};
  int ran = 0, refused = 0;
  for (int i = 0; i < 24; ++i) {
    std::string sets;
    const int n = 1 + int(rng() % 4);
    for (int k = 0; k < n; ++k) {
      const auto& [key, values] = keys[rng() % keys.size()];
      sets += " --set " + key + "=" + values[rng() % values.size()];
    }
    const std::filesystem::path json = dir / ("run-" + std::to_string(i) + ".json");
    const std::string cmd = std::string("run '") + (dir / (i % 2 ? "graph" : "stencil2d")).string() +
                            "' --gpu QV100 --model " + models[i % 3] + " --threads " + std::to_string(1 + i / 3 % 2) +
                            " -q --stats-json '" + json.string() + "'" + sets;
    SCOPED_TRACE(cmd);
    const Result r = lockstep_cmd(cmd, dir);
    if (r.exit_code == 0) {
      ++ran;
      const std::string text = test::read_text(json);
      EXPECT_NE(text.find("\"kernels\""), std::string::npos) << text.substr(0, 200);
    } else {
      ++refused;
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_EQ(lines(r.err), 1) << r.err;
      EXPECT_EQ(r.err.rfind("lockstep run: error: ", 0), 0u) << r.err;
      EXPECT_FALSE(std::filesystem::exists(json));
    }
  }
  // Both outcomes are exercised.
  EXPECT_GT(ran, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace lockstep
