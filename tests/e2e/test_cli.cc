// The lockstep driver end to end: bad input gives one clear stderr line and a
// non-zero exit, never a crash or a complete-looking output; run options work.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/e2e/cli_runner.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

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
  const std::string trace = "'" + (dir / "kernel-1.traceg").string() + "' --perfect-memory --gpu QV100";
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

TEST(Cli, BadOptionsAndConfigValuesAreOneLineErrors) {
  test::ScratchDir dir("cli");
  const std::string trace = "'" + (test::shared_traces() / "vectoradd-sm80").string() + "' --perfect-memory";
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

}  // namespace
}  // namespace lockstep
