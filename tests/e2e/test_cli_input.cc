// The driver on inputs that are short, huge or as real tracers print them:
// partial traces are errors unless --allow-partial (then warnings recorded in
// the container and the stats JSON), long lines are bounded and quoted short,
// 64-bit stream ids and long kernel names survive text -> .lst -> text.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "frontend/container/container_reader.h"
#include "tests/e2e/cli_runner.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}
using test::quoted;

// vectoradd-sm80 (196 blocks of 8 warps) with `edit` applied to its kernel file.
std::filesystem::path vectoradd_with(const test::ScratchDir& dir, const std::string& name,
                                     const std::function<std::string(std::string)>& edit) {
  const auto trace = dir / name;
  std::filesystem::create_directories(trace);
  const auto original = test::shared_traces() / "vectoradd-sm80";
  std::filesystem::copy_file(original / "kernelslist.g", trace / "kernelslist.g");
  write(trace / "kernel-1.traceg", edit(read_file(original / "kernel-1.traceg")));
  return trace;
}

// The first `blocks` thread blocks of a grouped trace.
std::string first_blocks(const std::string& text, size_t blocks) {
  size_t at = 0;
  for (size_t b = 0; b <= blocks; ++b) at = text.find("#BEGIN_TB", at + 1);
  return text.substr(0, at);
}

TEST(CliInput, ATraceCutAtABlockBoundaryIsAnErrorUnlessAllowedThenRecorded) {
  test::ScratchDir dir("cli-partial");
  const auto cut = vectoradd_with(dir, "cut", [](std::string t) { return first_blocks(t, 10); });
  const std::string finding = "kernel-1.traceg: 186 of 196 thread blocks missing (the first (10,0,0))";
  for (const std::string& cmd : {"info " + quoted(cut), "run " + quoted(cut) + " --perfect-memory",
                                 "convert " + quoted(cut) + " -o " + quoted(dir / "c.lst"),
                                 "export " + quoted(cut) + " -o " + quoted(dir / "exported")}) {
    SCOPED_TRACE(cmd);
    const Result r = lockstep_cmd(cmd, dir);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(finding), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--allow-partial"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "c.lst"));
  EXPECT_FALSE(std::filesystem::exists(dir / "exported"));

  // Allowed: a warning, and the fact travels with the container into the JSON.
  const Result conv = lockstep_cmd("convert " + quoted(cut) + " -o " + quoted(dir / "c.lst") + " -q --allow-partial", dir);
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  EXPECT_NE(conv.err.find("warning: "), std::string::npos) << conv.err;
  EXPECT_NE(conv.err.find(finding), std::string::npos) << conv.err;
  const Result refused = lockstep_cmd("run " + quoted(dir / "c.lst") + " --perfect-memory", dir);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(lines(refused.err), 1) << refused.err;
  EXPECT_NE(refused.err.find("c.lst: converted from "), std::string::npos) << refused.err;
  for (const auto& input : {dir / "c.lst", cut}) {
    SCOPED_TRACE(input);
    const auto json = dir / "s.json";
    const Result r = lockstep_cmd("run " + quoted(input) + " --perfect-memory -q --allow-partial --stats-json " + quoted(json), dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find(finding), std::string::npos) << r.err;
    const std::string j = read_file(json);
    const size_t key = j.find("\"partial_trace\": [\"");
    ASSERT_NE(key, std::string::npos) << j;
    EXPECT_NE(j.find(finding, key), std::string::npos) << j;
  }
  const auto whole_json = dir / "whole.json";
  ASSERT_EQ(lockstep_cmd("run " + quoted(test::shared_traces() / "vectoradd-sm80") + " --perfect-memory -q --stats-json " +
                             quoted(whole_json), dir).exit_code, 0);
  EXPECT_NE(read_file(whole_json).find("\"partial_trace\": []"), std::string::npos);
  EXPECT_EQ(lockstep_cmd("info " + quoted(dir / "c.lst") + " --allow-partial", dir).exit_code, 0);
  EXPECT_EQ(lockstep_cmd("export " + quoted(cut) + " -q --allow-partial -o " + quoted(dir / "exported"), dir).exit_code, 0);
  // Written again (convert of a .lst), the container is refused the same way, or keeps its findings.
  const Result again = lockstep_cmd("convert " + quoted(dir / "c.lst") + " -o " + quoted(dir / "r.lst"), dir);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(lines(again.err), 1) << again.err;
  EXPECT_NE(again.err.find("c.lst: converted from "), std::string::npos) << again.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.lst"));
  ASSERT_EQ(lockstep_cmd("convert " + quoted(dir / "c.lst") + " -q --allow-partial -o " + quoted(dir / "r.lst"), dir).exit_code, 0);
  const Result r = lockstep_cmd("info " + quoted(dir / "r.lst"), dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("r.lst: converted from "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(finding), std::string::npos) << r.err;
}

TEST(CliInput, RepeatedBlocksMissingWarpsAndWarpsWithoutExitAreNamed) {
  test::ScratchDir dir("cli-partial");
  // Block 0 a second time in place of block 1.
  const auto twice = vectoradd_with(dir, "twice", [](std::string t) {
    const size_t b1 = t.find("thread block = 1,0,0");
    return t.replace(b1, 20, "thread block = 0,0,0");
  });
  // Block 3 without its last warp (warp 7).
  const auto short_block = vectoradd_with(dir, "short", [](std::string t) {
    const size_t b3 = t.find("thread block = 3,0,0");
    const size_t w7 = t.find("warp = 7", b3), end = t.find("#END_TB", b3);
    return t.erase(w7, end - w7);
  });
  const struct {
    std::filesystem::path trace;
    std::string finding;
  } cases[] = {
      {twice, "kernel-1.traceg: 1 of 196 thread blocks missing (the first (1,0,0)); "},
      {twice, "kernel-1.traceg: 1 thread block(s) appear more than once (the first (0,0,0))"},
      {short_block, "kernel-1.traceg: 1 thread block(s) lack warps (the first (3,0,0): 7 of 8 warps, warp 7 missing)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.finding);
    const Result r = lockstep_cmd("convert " + quoted(c.trace) + " -o " + quoted(dir / "o.lst"), dir);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.finding), std::string::npos) << r.err;
  }

  // Raw tracer output cut mid-kernel: block 1's warp 0 has not reached its EXIT.
  std::string raw =
      "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n-binary version = 70\n"
      "-accelsim tracer version = 4\n\n";
  for (const char* blk : {"0", "1"}) raw += std::string(blk) + " 0 0 0 0000 ffffffff 1 R2 FADD 1 R3 0\n";
  raw += "0 0 0 0 0010 ffffffff 0 EXIT 0 0\n";
  write(dir / "kernel-1.trace", raw);
  const Result r = lockstep_cmd("info " + quoted(dir / "kernel-1.trace"), dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("kernel-1.trace: 1 warp(s) without EXIT (the first: block (1,0,0) warp 0)"), std::string::npos)
      << r.err;
  const Result allowed = lockstep_cmd("info " + quoted(dir / "kernel-1.trace") + " --allow-partial", dir);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_NE(allowed.out.find("2 blocks, 2 warps, 3 warp instructions"), std::string::npos) << allowed.out;
}

TEST(CliInput, LongLinesAreQuotedShortAndBoundedBeforeMemoryRunsOut) {
  test::ScratchDir dir("cli-long");
  const Result zero = lockstep_cmd("info /dev/zero", dir);
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_EQ(lines(zero.err), 1) << zero.err.substr(0, 300);
  EXPECT_NE(zero.err.find("/dev/zero:1: line longer than 64 MiB"), std::string::npos) << zero.err.substr(0, 300);

  // A 6 MB header line and a 6 MB opcode: the message shows 100 characters and the length.
  const std::string huge(6'000'000, 'q');
  const auto bad_header = vectoradd_with(dir, "h", [&](std::string t) { return t.insert(0, "-" + huge + "\n"); });
  const auto bad_opcode = vectoradd_with(dir, "o", [&](std::string t) {
    const size_t mov = t.find(" MOV ");
    return t.replace(mov + 1, 3, huge);
  });
  for (const auto& [trace, what] : {std::pair{bad_header, "header line without '=': '-qqq"},
                                    std::pair{bad_opcode, "expected an opcode, got 'qqq"}}) {
    SCOPED_TRACE(what);
    const Result r = lockstep_cmd("info " + quoted(trace), dir);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(lines(r.err), 1);
    EXPECT_LT(r.err.size(), 400u) << r.err.substr(0, 400);
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err.substr(0, 400);
    EXPECT_NE(r.err.find("qqq...' (600000"), std::string::npos) << r.err.substr(0, 400);
  }
}

TEST(CliInput, StreamIdsAndLongKernelNamesRoundTripByteForByte) {
  test::ScratchDir dir("cli-roundtrip");
  const std::string name(5'000'000, 'K');
  const struct {
    const char* stream;
    std::string kernel_name;
  } cases[] = {{"-1233924576", "_Z9vectorAddPKfS0_Pfi"},
               {"18446744073709551615", "_Z9vectorAddPKfS0_Pfi"},
               {"94730934505216", name}};
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.stream);
    const std::string tag = std::to_string(n++);
    const auto trace = vectoradd_with(dir, "t" + tag, [&](std::string t) {
      t.replace(t.find("-cuda stream id = 0"), 19, std::string("-cuda stream id = ") + c.stream);
      return t.replace(t.find("_Z9vectorAddPKfS0_Pfi"), 21, c.kernel_name);
    });
    const auto lst = dir / ("t" + tag + ".lst"), out = dir / ("out" + tag);
    const Result conv = lockstep_cmd("convert " + quoted(trace) + " -q -o " + quoted(lst), dir);
    ASSERT_EQ(conv.exit_code, 0) << conv.err;
    const Result info = lockstep_cmd("info " + quoted(lst), dir);
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_NE(info.out.find(std::string("stream ") + c.stream + ","), std::string::npos) << info.out.substr(0, 500);
    ASSERT_EQ(lockstep_cmd("export " + quoted(lst) + " -q -o " + quoted(out), dir).exit_code, 0);
    EXPECT_TRUE(read_file(out / "kernel-1.traceg") == read_file(trace / "kernel-1.traceg"));
  }
}

TEST(CliInput, InfoCheckReadsBackEveryChunkWithoutSimulating) {
  test::ScratchDir dir("cli-check");
  const auto lst = dir / "t.lst";
  ASSERT_EQ(lockstep_cmd("convert " + quoted(test::shared_traces() / "bfs-rodinia-sm80") + " -q -o " + quoted(lst), dir).exit_code, 0);
  const Result good = lockstep_cmd("info --check " + quoted(lst), dir);
  ASSERT_EQ(good.exit_code, 0) << good.err;
  const ContainerReader reader(lst);
  uint64_t chunks = 0;
  for (uint32_t k = 0; k < reader.kernel_count(); ++k) chunks += reader.chunk_count(k);
  EXPECT_NE(good.out.find("check: " + std::to_string(chunks) + " chunks and 16 kernel tables read back, every checksum matches"
                          " (.lst format version " + std::to_string(container::kFormatVersion) + ")"),
            std::string::npos)
      << good.out;
  {
    const ChunkInfo first = reader.block_index(3)->chunks[0];
    const uint64_t at = first.offset + first.size / 2;  // inside kernel 3's first chunk
    std::fstream f(lst, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(at));
    const char c = char(f.get());
    f.seekp(std::streamoff(at));
    f.put(char(c ^ 0x5a));
  }
  EXPECT_EQ(lockstep_cmd("info " + quoted(lst), dir).exit_code, 0);  // the index alone does not see it
  const Result bad = lockstep_cmd("info --check " + quoted(lst), dir);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("t.lst: kernel 3 chunk 0: checksum mismatch"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace lockstep
