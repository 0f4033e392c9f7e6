// The Accel-Sim text parser on every real sample trace and on hand-written
// edge cases of each format variant.
#include <gtest/gtest.h>

#include <bit>
#include <fstream>

#include "frontend/text/block_parser.h"
#include "frontend/text/kernel_text_reader.h"
#include "frontend/text/text_trace_source.h"
#include "frontend/trace/trace_error.h"
#include "tests/frontend/first_block.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

struct Totals {
  uint64_t blocks = 0, warps = 0, insts = 0, mem_insts = 0;
};

Totals read_all(TraceSource& src) {
  Totals t;
  for (uint32_t k = 0; k < src.manifest().kernels.size(); ++k) {
    auto cursor = src.open_blocks(k);
    BlockTrace b;
    while (cursor->next(b)) {
      ++t.blocks;
      t.warps += b.warps.size();
      for (const WarpTrace& w : b.warps) {
        t.insts += w.insts.size();
        for (const WarpInstruction& wi : w.insts) {
          const StaticInstruction& st = src.static_table(k).inst(wi.static_id);
          if (!st.is_memory()) continue;
          ++t.mem_insts;
          LaneBuffer buf;
          EXPECT_EQ(w.lane_addresses(wi, src.static_table(k), buf).size(), size_t(std::popcount(wi.active_mask)));
        }
      }
    }
  }
  return t;
}

// Counts instruction lines the way a reader of the files would (the README's table).
TEST(TextParser, ReadsEverySampleTraceWithTheDocumentedLineCounts) {
  const auto dir = test::shared_traces();
  const std::pair<const char*, uint64_t> expected[] = {{"vectoradd-sm80", 26601},
                                                       {"bfs-rodinia-sm80", 159509},
                                                       {"matrixmul-sm61", 4416},
                                                       {"flashinfer-gemm-sm80/traces", 6451},
                                                       {"lud-kernel8-sm70", 1027}};
  for (const auto& [name, lines] : expected) {
    SCOPED_TRACE(name);
    TextTraceSource src(dir / name);
    const Totals t = read_all(src);
    EXPECT_EQ(t.insts, lines);
    EXPECT_GT(t.mem_insts, 0u);
  }
}

TEST(TextParser, KeepsHeadersAndMemcpys) {
  TextTraceSource src(test::shared_traces() / "vectoradd-sm80");
  const TraceManifest& m = src.manifest();
  ASSERT_EQ(m.kernels.size(), 1u);
  const KernelInfo& k = m.kernels[0];
  EXPECT_EQ(k.name, "_Z9vectorAddPKfS0_Pfi");
  EXPECT_EQ(k.grid, (Dim3{196, 1, 1}));
  EXPECT_EQ(k.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(k.nregs, 12u);
  EXPECT_EQ(k.binary_version, 80u);
  EXPECT_EQ(k.tracer_version, 5u);
  EXPECT_EQ(k.shmem_base, 0x00007fb139000000ull);
  EXPECT_EQ(k.header_fields.size(), 13u);
  ASSERT_EQ(m.commands.size(), 3u);
  EXPECT_EQ(m.commands[0].kind, TraceCommand::Kind::kMemcpy);
  EXPECT_EQ(m.commands[0].memcpy.address, 0x00007fb0fc400000ull);
  EXPECT_EQ(m.commands[0].memcpy.bytes, 200000u);
  EXPECT_EQ(m.commands[2].kind, TraceCommand::Kind::kKernel);
}

TEST(TextParser, PreVersion3PrefixedLinesCarryBlockAndWarp) {
  TextTraceSource src(test::shared_traces() / "lud-kernel8-sm70");
  EXPECT_EQ(src.manifest().kernels[0].tracer_version, 0u);
  auto cursor = src.open_blocks(0);
  BlockTrace b;
  ASSERT_TRUE(cursor->next(b));
  ASSERT_EQ(b.warps.size(), 1u);
  EXPECT_EQ(b.warps[0].insts.size(), 1027u);
  const StaticTable& t = src.static_table(0);
  EXPECT_EQ(t.opcode_of(b.warps[0].insts[0].static_id), "SHFL.IDX");
  EXPECT_EQ(b.warps[0].insts[0].active_mask, 0u);
}

const char* kHeaderV5 =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 8\n"
    "-binary version = 80\n-cuda stream id = 0\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n";

BlockTrace parse_one(const std::string& body, StaticTable& table, const char* header = kHeaderV5) {
  return test::parse_first_block(std::string(header) + body, "mem.traceg", table);
}

TEST(TextParser, AddressModes) {
  StaticTable t;
  const BlockTrace b = parse_one(
      "#BEGIN_TB\nthread block = 1,0,0\nwarp = 1\ninsts = 5\n"
      "0010 0000000f 1 R2 LDG.E 1 R4 4 0 0x100 0x200 0x300 0x400 0\n"   // mode 0: list
      "0020 000000f0 1 R2 LDG.E.64 1 R4 8 1 0x1000 8 0\n"               // mode 1: base + stride
      "0030 00000007 0 STG.E 2 R4 R2 4 2 0x2000 -16 4 0\n"              // mode 2: base + deltas
      "0040 00000000 1 R6 LDG.E.64 1 R28 8 1 0x0 0 0\n"                 // fully masked
      "0050 00010000 1 R6 LDG.E.U8 1 R28 1 2 0x7fc8415229eb 0\n"        // single lane, mode 2
      "#END_TB\n",
      t);
  ASSERT_EQ(b.warps.size(), 1u);
  const WarpTrace& w = b.warps[0];
  ASSERT_EQ(w.insts.size(), 5u);
  auto addrs = [&](int i) {
    LaneBuffer buf;
    auto s = w.lane_addresses(w.insts[i], t, buf);
    return std::vector<uint64_t>(s.begin(), s.end());
  };
  EXPECT_EQ(addrs(0), (std::vector<uint64_t>{0x100, 0x200, 0x300, 0x400}));
  EXPECT_EQ(addrs(1), (std::vector<uint64_t>{0x1000, 0x1008, 0x1010, 0x1018}));
  EXPECT_EQ(addrs(2), (std::vector<uint64_t>{0x2000, 0x1ff0, 0x1ff4}));
  EXPECT_TRUE(addrs(3).empty());
  EXPECT_EQ(addrs(4), (std::vector<uint64_t>{0x7fc8415229ebull}));
  EXPECT_EQ(t.inst(w.insts[1].static_id).access_bytes(), 8u);
  EXPECT_EQ(t.inst(w.insts[4].static_id).access_bytes(), 1u);
  EXPECT_EQ(t.inst(w.insts[2].static_id).traits.space, MemSpace::kGlobal);
  EXPECT_EQ(t.inst(w.insts[2].static_id).traits.op, MemOp::kStore);
}

TEST(TextParser, LineInfoAndImmediate) {
  const char* header =
      "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 5\n"
      "-enable lineinfo = 1\n";
  StaticTable t;
  const BlockTrace b = parse_one(
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n42 00f0 ffffffff 1 R8 IADD3 2 R8 R255 0 -1\n#END_TB\n", t,
      header);
  const StaticInstruction& st = t.inst(b.warps[0].insts[0].static_id);
  EXPECT_TRUE(st.has_line);
  EXPECT_EQ(st.line, 42u);
  EXPECT_EQ(st.pc, 0xf0u);
  EXPECT_TRUE(st.has_immediate);
  EXPECT_EQ(st.immediate, -1);
  EXPECT_EQ(st.srcs.size(), 2u);
  EXPECT_TRUE(st.srcs[1].is_zero());
}

TEST(TextParser, UniformAndPredicateRegisters) {
  StaticTable t;
  const BlockTrace b = parse_one(
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0010 ffffffff 2 R4 P0 IMAD 3 R2 UR4 UP1 0 0\n#END_TB\n", t);
  const StaticInstruction& st = t.inst(b.warps[0].insts[0].static_id);
  ASSERT_EQ(st.dsts.size(), 2u);
  EXPECT_EQ(st.dsts[1].kind, RegKind::kP);
  EXPECT_EQ(st.srcs[1].kind, RegKind::kUR);
  EXPECT_EQ(st.srcs[1].num, 4u);
  EXPECT_EQ(st.srcs[2].kind, RegKind::kUP);
}

TEST(TextParser, RawTracerOutputIsGroupedByBlockAndWarpEvenWhenSpilled) {
  const char* header =
      "-kernel name = k\n-grid dim = (3,1,1)\n-block dim = (64,1,1)\n-accelsim tracer version = 4\n"
      "-enable lineinfo = 0\n\n#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask ...\n\n";
  std::string body;
  // Interleave blocks 2, 0, 1 and their warps, as a GPU would.
  for (int i = 0; i < 50; ++i)
    for (int blk : {2, 0, 1})
      for (int w : {1, 0}) {
        char line[128];
        std::snprintf(line, sizeof line, "%d 0 0 %d %04x ffffffff 1 R%d LDG.E 1 R2 4 1 0x%x 4\n", blk, w, 0x10 * i,
                      w, 0x1000 * blk + 0x100 * w + i);
        body += line;
      }
  const std::string text = std::string(header) + body;
  for (size_t budget : {size_t(1) << 30, size_t(200)}) {  // all in memory, then spilling constantly
    SCOPED_TRACE(budget);
    KernelTextReader reader(text, "kernel-1.trace", nullptr, budget);
    EXPECT_TRUE(reader.info().raw_tracer_output);
    StaticTable t;
    for (uint32_t expect_blk = 0; expect_blk < 3; ++expect_blk) {
      BlockText bt;
      ASSERT_TRUE(reader.next_block(bt));
      BlockTrace b;
      parse_block_text(bt, reader.info(), reader.name(), t, b);
      EXPECT_EQ(b.id, (Dim3{expect_blk, 0, 0}));
      ASSERT_EQ(b.warps.size(), 2u);
      for (uint32_t w = 0; w < 2; ++w) {
        EXPECT_EQ(b.warps[w].warp_id, w);
        ASSERT_EQ(b.warps[w].insts.size(), 50u);
        LaneBuffer buf;
        EXPECT_EQ(b.warps[w].lane_addresses(b.warps[w].insts[7], t, buf)[0], 0x1000u * expect_blk + 0x100u * w + 7);
        EXPECT_EQ(t.inst(b.warps[w].insts[7].static_id).pc, 0x70u);
      }
    }
    BlockText bt;
    EXPECT_FALSE(reader.next_block(bt));
  }
}

// The tracer writes an LDGSTS as two adjacent lines of its warp: the shared
// operand's addresses, then the global operand's. They make one instruction
// with the global addresses (as Accel-Sim's post-processing keeps the second);
// an LDGSTS line without its pair (traces already post-processed) stays.
TEST(TextParser, LdgstsLinePairsAreOneInstruction) {
  auto lanes_of = [](const WarpTrace& w, const StaticTable& t, size_t i) {
    LaneBuffer buf;
    auto a = w.lane_addresses(w.insts.at(i), t, buf);
    return std::vector<uint64_t>(a.begin(), a.end());
  };
  StaticTable t;
  const BlockTrace b = parse_one(
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 6\n"
      "0010 00000003 0 LDGSTS.E.BYPASS.128 2 R3 R4 16 1 0x400 16 0\n"   // shared half
      "0010 00000003 0 LDGSTS.E.BYPASS.128 2 R3 R4 16 1 0x7f0000 16 0\n"  // global half
      "0020 00000003 0 LDGSTS.E.BYPASS.128 2 R3 R4 16 1 0x7f1000 16 0\n"  // alone (post-processed)
      "0030 00000003 0 LDGSTS.E.BYPASS.128 2 R3 R4 16 1 0x7f2000 16 0\n"  // alone, a different PC
      "0040 00000003 0 ARRIVES.LDGSTSBAR.64 1 R4 0 0\n"
      "0050 00000003 0 LDGSTS.E.BYPASS.128 2 R3 R4 16 1 0x7f3000 16 0\n"  // alone, the warp's last
      "#END_TB\n",
      t);
  const WarpTrace& w = b.warps.at(0);
  ASSERT_EQ(w.insts.size(), 5u);
  EXPECT_EQ(lanes_of(w, t, 0), (std::vector<uint64_t>{0x7f0000, 0x7f0010}));
  EXPECT_EQ(lanes_of(w, t, 1), (std::vector<uint64_t>{0x7f1000, 0x7f1010}));
  EXPECT_EQ(lanes_of(w, t, 2), (std::vector<uint64_t>{0x7f2000, 0x7f2010}));
  EXPECT_EQ(t.opcode_of(w.insts[3].static_id), "ARRIVES.LDGSTSBAR.64");
  EXPECT_EQ(lanes_of(w, t, 4), (std::vector<uint64_t>{0x7f3000, 0x7f3010}));

  // Raw output: the halves of two warps interleave; each warp pairs its own.
  const char* header =
      "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n-accelsim tracer version = 5\n"
      "-enable lineinfo = 0\n\n";
  const std::string raw = std::string(header) +
                          "0 0 0 0 0010 00000001 0 LDGSTS.E 2 R3 R4 4 1 0x400 4 0\n"
                          "0 0 0 1 0010 00000001 0 LDGSTS.E 2 R3 R4 4 1 0x480 4 0\n"
                          "0 0 0 0 0010 00000001 0 LDGSTS.E 2 R3 R4 4 1 0x7f0000 4 0\n"
                          "0 0 0 1 0010 00000001 0 LDGSTS.E 2 R3 R4 4 1 0x7f8000 4 0\n"
                          "0 0 0 0 0020 ffffffff 0 EXIT 0 0 0\n"
                          "0 0 0 1 0020 ffffffff 0 EXIT 0 0 0\n";
  StaticTable rt;
  const BlockTrace rb = test::parse_first_block(raw, "kernel-1.trace", rt);
  ASSERT_EQ(rb.warps.size(), 2u);
  for (const WarpTrace& rw : rb.warps) {
    ASSERT_EQ(rw.insts.size(), 2u);
    EXPECT_EQ(lanes_of(rw, rt, 0), (std::vector<uint64_t>{rw.warp_id == 0 ? 0x7f0000u : 0x7f8000u}));
  }
}

// Bad input: each case names the file and line and never crashes.
struct BadCase {
  const char* name;
  std::string body;
  const char* expect;  // substring of the error
};

TEST(TextParser, MalformedInputGivesOneClearError) {
  const std::string ok_line = "0010 ffffffff 1 R2 IADD3 2 R2 R255 0 0\n";
  const BadCase cases[] = {
      {"missing END_TB", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" + ok_line, "no #END_TB"},
      {"insts mismatch", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n" + ok_line + "#END_TB\n",
       "declares insts = 2 but has 1"},
      {"bad hex pc", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n00g0 ffffffff 0 NOP 0 0 0\n#END_TB\n",
       "bad hex PC '00g0'"},
      {"bad address mode",
       "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0010 00000001 1 R2 LDG.E 1 R4 4 7 0x100 0\n#END_TB\n",
       "unknown address mode 7"},
      {"missing addresses",
       "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0010 00000003 1 R2 LDG.E 1 R4 4 0 0x100\n#END_TB\n",
       "line ends before lane address"},
      {"bad register", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0010 ffffffff 1 X2 MOV 0 0 0\n#END_TB\n",
       "bad register 'X2'"},
      {"block outside grid", "#BEGIN_TB\nthread block = 9,0,0\nwarp = 0\ninsts = 1\n" + ok_line + "#END_TB\n",
       "outside grid"},
      {"warp outside block", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 5\ninsts = 1\n" + ok_line + "#END_TB\n",
       "warp 5 outside a block of 64 threads"},
      {"trailing junk", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0010 ffffffff 0 NOP 0 0 0 7 8\n#END_TB\n",
       "unexpected trailing field"},
      {"mask too wide", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0010 1ffffffff 0 NOP 0 0 0\n#END_TB\n",
       "wider than 32 lanes"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    StaticTable t;
    try {
      parse_one(c.body, t);
      ADD_FAILURE() << "no error for " << c.name;
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("mem.traceg", 0), 0u) << e.what();
    }
  }
}

TEST(TextParser, UnknownHeaderKeyIsAWarningAndKept) {
  std::vector<std::string> warnings;
  const std::string text = std::string(kHeaderV5) + "-future key = 7\n#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n";
  KernelTextReader reader(text, "k.traceg", [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("unknown header key 'future key'"), std::string::npos);
  EXPECT_EQ(reader.info().header_fields.back(), (std::pair<std::string, std::string>("future key", "7")));
}

// The tracer names its raw list after the CUDA context: a directory with one
// such list reads it; with several (one per context) and no kernelslist.g,
// the error names them.
TEST(TextParser, DirectoryWithoutKernelslistNamesTheListsItHas) {
  {
    test::ScratchDir dir("onelist");
    std::ofstream(dir / "kernelslist_ctx_0x5584c875a730") << "kernel-1-ctx_0x5584c875a730.trace\n";
    std::ofstream(dir / "kernel-1-ctx_0x5584c875a730.trace")
        << "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 5\n"
           "-enable lineinfo = 0\n\n0 0 0 0 0000 ffffffff 0 EXIT 0 0 0\n";
    TextTraceSource src(dir.path(), nullptr);
    EXPECT_EQ(src.manifest().kernels.at(0).source_file, "kernel-1-ctx_0x5584c875a730.trace");
    EXPECT_TRUE(src.manifest().kernels.at(0).raw_tracer_output);
  }
  test::ScratchDir dir("lists");
  for (const char* name : {"kernelslist_ctx_0x2.g", "kernelslist_ctx_0x1.g", "kernel-1.traceg"})
    std::ofstream(dir / name) << "kernel-1.traceg\n";
  try {
    TextTraceSource src(dir.path(), nullptr);
    ADD_FAILURE() << "no error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(": no kernelslist.g (or raw kernelslist) in this directory; it has "
                                         "kernelslist_ctx_0x1.g, kernelslist_ctx_0x2.g: name the one to read"),
              std::string::npos)
        << e.what();
  }
}

TEST(TextParser, TruncatedXzIsAnError) {
  test::ScratchDir dir("xz");
  const auto src = test::shared_traces() / "flashinfer-gemm-sm80/traces/kernel-1.traceg.xz";
  std::ifstream in(src, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const auto cut = dir / "kernel-1.traceg.xz";
  std::ofstream(cut, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
  try {
    TextTraceSource s(cut);
    auto c = s.open_blocks(0);
    BlockTrace b;
    while (c->next(b)) {
    }
    ADD_FAILURE() << "truncated xz accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("xz"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lockstep
