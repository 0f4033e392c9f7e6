// Accel-Sim .tracez files that are damaged or not .tracez at all: each gives
// one error naming the file (and the block or warp where it can), never a
// crash or a read out of bounds.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "frontend/text/kernel_text_reader.h"
#include "frontend/text/text_trace_source.h"
#include "frontend/trace/trace_error.h"
#include "tests/frontend/tracez_writer.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

const char* kTrace =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 8\n"
    "-binary version = 90\n-cuda stream id = 0\n-accelsim tracer version = 6\n-enable lineinfo = 0\n\n"
    "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width ...\n\n"
    "#BEGIN_TB\n\nthread block = 0,0,0\ncluster id = 0,0,0\ncluster cta = 0,0,0\ncluster rank = 0\n\n"
    "warp = 0\ninsts = 3\n0000 ffffffff 1 R1 MOV 0 0 0 NoVal\n0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f0000 4 0 NoVal\n"
    "0020 ffffffff 0 EXIT 0 0 0 NoVal\n\nwarp = 1\ninsts = 2\n0000 ffffffff 1 R1 MOV 0 0 0 NoVal\n"
    "0020 ffffffff 0 EXIT 0 0 0 NoVal\n\n#END_TB\n\n"
    "#BEGIN_TB\n\nthread block = 1,0,0\ncluster id = 1,0,0\ncluster cta = 0,0,0\ncluster rank = 0\n\n"
    "warp = 0\ninsts = 1\n0020 ffffffff 0 EXIT 0 0 0 NoVal\n\nwarp = 1\ninsts = 1\n0020 ffffffff 0 EXIT 0 0 0 NoVal\n"
    "\n#END_TB\n";

std::string read_all(const std::filesystem::path& p) {
  KernelTextReader r(KernelFileRef{p, p.filename().string()}, nullptr);
  StaticTable t;
  BlockText bt;
  std::string ids;
  while (r.next_block(bt)) {
    BlockTrace b;
    parse_block_text(bt, r.info(), r.name(), t, b);
    ids += b.id.str() + (b.has_cluster ? "c" : "") + std::to_string(b.warp_insts()) + " ";
  }
  return ids;
}

TEST(Tracez, ReadsBlocksWithTheirClusterPlaces) {
  test::ScratchDir dir("tz");
  const auto path = dir / "kernel-1.tracez";
  std::ofstream(path, std::ios::binary) << test::tracez_bytes(test::split_traceg(kTrace), 2);
  EXPECT_EQ(read_all(path), "(0,0,0)c5 (1,0,0)c2 ");
  TextTraceSource src(path, nullptr);
  EXPECT_EQ(src.manifest().kernels.at(0).tracer_version, 6u);
  EXPECT_EQ(src.manifest().kernels.at(0).name, "k");
}

TEST(Tracez, DamagedFilesGiveOneClearError) {
  const std::string good = test::tracez_bytes(test::split_traceg(kTrace), 2);
  const size_t body = good.find('\0') + 1;
  const uint64_t index = [&] {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(good[good.size() - 8 + i])) << (8 * i);
    return v;
  }();
  auto set32 = [](std::string& s, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) s[at + i] = char(v >> (8 * i));
  };
  const std::pair<std::function<void(std::string&)>, const char*> cases[] = {
      {[&](std::string& s) { s.resize(body - 1); }, "no NUL byte ends the kernel header"},
      {[&](std::string& s) { s.resize(body + 6); }, "file ends before its index (truncated?)"},
      {[&](std::string& s) { set32(s, body, 1u << 30); }, "dictionary of 1073741824 bytes runs past the end"},
      {[&](std::string& s) { s.resize(s.size() - 1); }, "outside the file's data"},
      {[&](std::string& s) { set32(s, size_t(index), 1000000); }, "index claims 1000000 blocks"},
      {[&](std::string& s) { set32(s, size_t(index) + 4 + 40, 99999); }, "block record 0 of the index claims 99999 warps"},
      {[&](std::string& s) { set32(s, size_t(index), 1); }, "bytes after the index's last record"},
      {[&](std::string& s) { set32(s, size_t(index) + 4 + 44, 4); }, "has 4 instructions but its sub-chunks 3"},
      {[&](std::string& s) { set32(s, size_t(index) + 4 + 44 + 8, 7); }, "outside the file's data"},
      {[&](std::string& s) { set32(s, body + 8, 9); }, "block (0,0,0) warp 0: its data's header disagrees with the index"},
      {[&](std::string& s) { s[body + 8 + 8 + 4 + 2] ^= 0x55; }, "block (0,0,0) warp 0: sub-chunk 0"},
      {[&](std::string& s) { s += "xx"; }, "outside the file's data"},
  };
  test::ScratchDir dir("tzbad");
  int n = 0;
  for (const auto& [damage, expect] : cases) {
    SCOPED_TRACE(expect);
    std::string bad = good;
    damage(bad);
    const auto path = dir / ("k" + std::to_string(n++) + ".tracez");
    std::ofstream(path, std::ios::binary) << bad;
    try {
      read_all(path);
      ADD_FAILURE() << "no error";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(path.string(), 0), 0u) << e.what();
    }
  }
}

// A parse error inside a block names the file and the block, and counts lines
// in the block's text as `lockstep export` would write it.
TEST(Tracez, ParseErrorsNameTheBlock) {
  std::string text = kTrace;
  text.replace(text.find("0020 ffffffff 0 EXIT 0 0 0 NoVal\n\n#END_TB"), 4, "00g0");
  test::ScratchDir dir("tzparse");
  const auto path = dir / "kernel-1.tracez";
  std::ofstream(path, std::ios::binary) << test::tracez_bytes(test::split_traceg(text), 2);
  try {
    read_all(path);
    ADD_FAILURE() << "no error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + " (block 0,0,0 as .traceg text):13: bad hex PC '00g0'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lockstep
