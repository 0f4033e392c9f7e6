// Accel-Sim tracer version 6 lines: thread-block cluster lines, the GMMA
// commit-group flag, TMA/bulk-copy transfer lists, a second immediate and the
// register-value field ("NoVal", or "Val" and the values), each read as
// Accel-Sim's trace_parser reads it, and each malformed form refused with one
// line naming the file and line.
#include <gtest/gtest.h>

#include <algorithm>

#include "frontend/text/block_parser.h"
#include "frontend/text/kernel_text_reader.h"
#include "frontend/trace/trace_error.h"
#include "tests/frontend/first_block.h"

namespace lockstep {
namespace {

const char* kHeaderV6 =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (4,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 8\n"
    "-binary version = 90\n-cuda stream id = 0\n-accelsim tracer version = 6\n-enable lineinfo = 0\n\n";
const char* kHeaderV5 =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (4,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 8\n"
    "-binary version = 90\n-cuda stream id = 0\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n";

BlockTrace parse_one(const std::string& body, StaticTable& table, const char* header = kHeaderV6) {
  return test::parse_first_block(std::string(header) + body, "v6.traceg", table);
}

std::string block(const std::string& lines, const std::string& cluster = "") {
  return "#BEGIN_TB\n\nthread block = 3,0,0\n" + cluster + "\nwarp = 0\ninsts = " +
         std::to_string(std::count(lines.begin(), lines.end(), '\n')) + "\n" + lines + "\n#END_TB\n";
}

const StaticInstruction& only(const BlockTrace& b, const StaticTable& t, size_t i = 0) {
  return t.inst(b.warps.at(0).insts.at(i).static_id);
}

TEST(TextParserV6, ClusterLinesGiveTheBlocksPlaceInItsCluster) {
  StaticTable t;
  const BlockTrace b = parse_one(block("0010 ffffffff 0 EXIT 0 0 0 NoVal\n",
                                       "cluster id = 1,0,0\ncluster cta = 1,0,0\ncluster rank = 1\n"),
                                 t);
  EXPECT_EQ(b.id, (Dim3{3, 0, 0}));
  ASSERT_TRUE(b.has_cluster);
  EXPECT_EQ(b.cluster.id, (Dim3{1, 0, 0}));
  EXPECT_EQ(b.cluster.cta, (Dim3{1, 0, 0}));
  EXPECT_EQ(b.cluster.rank, 1u);
  const BlockTrace plain = parse_one(block("0010 ffffffff 0 EXIT 0 0 0 NoVal\n"), t);
  EXPECT_FALSE(plain.has_cluster);
}

TEST(TextParserV6, SecondImmediateAndTheValueMarker) {
  StaticTable t;
  const BlockTrace b = parse_one(block("0010 ffffffff 1 R2 IADD3 2 R2 R255 0 5 -7 NoVal\n"
                                       "0020 ffffffff 1 R2 IADD3 2 R2 R255 0 5 NoVal\n"
                                       "0030 ffffffff 1 R2 IADD3 2 R2 R255 0 5\n"
                                       "0040 ffffffff 1 R2 IADD3 2 R2 R255 0 5 Val 1 0x10 32 " +
                                       [] {
                                         std::string v;
                                         for (int i = 0; i < 32; ++i) v += std::to_string(i) + " ";
                                         return v;
                                       }() + "1 0\n"),
                                 t);
  const StaticInstruction& a = only(b, t, 0);
  EXPECT_EQ(a.immediate, 5);
  EXPECT_TRUE(a.has_imm2);
  EXPECT_EQ(a.imm2, -7);
  EXPECT_EQ(a.value_marker, ValueMarker::kNoVal);
  EXPECT_FALSE(only(b, t, 1).has_imm2);
  EXPECT_EQ(only(b, t, 1).value_marker, ValueMarker::kNoVal);
  EXPECT_EQ(only(b, t, 2).value_marker, ValueMarker::kNone);
  const StaticInstruction& v = only(b, t, 3);
  EXPECT_EQ(v.value_marker, ValueMarker::kValDropped);
  EXPECT_EQ(v.immediate, 5);
  EXPECT_EQ(v.dsts.size() + v.srcs.size(), 3u);
}

TEST(TextParserV6, GmmaCommitGroupFlagComesBeforeTheWidth) {
  StaticTable t;
  const BlockTrace b = parse_one(block("0010 ffffffff 1 R24 HGMMA.64x128x16.F32 2 R24 UR4 1 0 0 NoVal\n"
                                       "0020 ffffffff 1 R24 HGMMA.64x128x16.F32 2 R24 UR4 0 0 0 NoVal\n"
                                       "0030 ffffffff 1 R2 IMAD 2 R2 R3 0 0 NoVal\n"),
                                 t);
  EXPECT_EQ(only(b, t, 0).gmma_commit, 1);
  EXPECT_EQ(only(b, t, 0).mem_width, 0u);
  EXPECT_EQ(only(b, t, 1).gmma_commit, 0);
  EXPECT_EQ(only(b, t, 2).gmma_commit, -1);
  EXPECT_NE(b.warps[0].insts[0].static_id, b.warps[0].insts[1].static_id);
}

TEST(TextParserV6, TmaTransferListsAreReadNotKept) {
  StaticTable t;
  const BlockTrace b = parse_one(
      block("0010 ffffffff 0 UTMALDG.2D 2 UR6 UR8 16 0x7fb139000400 0 8192 0 4 0x7f0000100000 4 128 128 128 0 NoVal\n"
            "0020 ffffffff 0 UTMALDG.2D 2 UR6 UR8 16 0x7fb139000400 1 0x3 256 0 3 2 0x7f0000100000 0x7f0000100080 0 "
            "NoVal\n"
            "0030 ffffffff 0 UBLKCP.S.G 2 UR6 UR8 16 0x7fb139000400 0 0 0 4 0x0 0 0 NoVal\n"
            "0040 ffffffff 0 UTMACMDFLUSH 0 0 0 NoVal\n"),
      t);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(only(b, t, i).transfer_dropped);
    EXPECT_EQ(only(b, t, i).mem_width, 0u);
    EXPECT_FALSE(only(b, t, i).is_memory());
    EXPECT_EQ(only(b, t, i).value_marker, ValueMarker::kNoVal);
  }
  EXPECT_FALSE(only(b, t, 3).transfer_dropped);
  const std::vector<std::string> notes = dropped_field_notes(t, "v6.traceg");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("v6.traceg: 3 static TMA/bulk-copy instruction(s)"), std::string::npos) << notes[0];
}

TEST(TextParserV6, Version5LinesKeepTheirStrictEnd) {
  StaticTable t;
  try {
    parse_one(block("0010 ffffffff 1 R2 IADD3 2 R2 R255 0 5 NoVal\n"), t, kHeaderV5);
    ADD_FAILURE() << "a version 5 line took a version 6 field";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("unexpected trailing field 'NoVal'"), std::string::npos) << e.what();
  }
  // No commit-group flag before version 6: the token after the sources is the width.
  const BlockTrace b = parse_one(block("0010 ffffffff 1 R24 HGMMA.64x128x16.F32 2 R24 UR4 0 0\n"), t, kHeaderV5);
  EXPECT_EQ(only(b, t).gmma_commit, -1);
  EXPECT_EQ(only(b, t).immediate, 0);
}

// The tracer's raw output (before grouping): in version 6 every line's
// "tb_x tb_y tb_z warp" prefix goes on with the cluster id, the block's index
// in its cluster and its rank.
TEST(TextParserV6, RawLinesCarryTheClusterAfterTheWarp) {
  const std::string text = std::string(kHeaderV6) +
                           "1 0 0 0 0 0 0 1 0 0 1 0010 ffffffff 1 R2 MOV 1 R3 0 0 NoVal\n"
                           "0 0 0 0 0 0 0 0 0 0 0 0010 ffffffff 1 R2 MOV 1 R3 0 0 NoVal\n"
                           "1 0 0 1 0 0 0 1 0 0 1 0020 ffffffff 0 EXIT 0 0 0 NoVal\n"
                           "0 0 0 0 0 0 0 0 0 0 0 0020 ffffffff 0 EXIT 0 0 0 NoVal\n"
                           "1 0 0 0 0 0 0 1 0 0 1 0020 ffffffff 0 EXIT 0 0 0 NoVal\n";
  KernelTextReader reader(text, "kernel-1.trace", nullptr);
  StaticTable t;
  for (uint32_t x : {0u, 1u}) {
    BlockText bt;
    ASSERT_TRUE(reader.next_block(bt));
    BlockTrace b;
    parse_block_text(bt, reader.info(), reader.name(), t, b);
    EXPECT_EQ(b.id, (Dim3{x, 0, 0}));
    ASSERT_TRUE(b.has_cluster);
    EXPECT_EQ(b.cluster, (ClusterPlace{{0, 0, 0}, {x, 0, 0}, x}));
  }
  const std::string bad = std::string(kHeaderV6) +
                          "1 0 0 0 0 0 0 1 0 0 1 0010 ffffffff 1 R2 MOV 1 R3 0 0 NoVal\n"
                          "1 0 0 0 0 0 0 0 0 0 0 0020 ffffffff 0 EXIT 0 0 0 NoVal\n";
  try {
    test::parse_first_block(bad, "kernel-1.trace", t);
    ADD_FAILURE() << "no error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel-1.trace:13: the cluster fields differ from those of block (1,0,0)"),
              std::string::npos)
        << e.what();
  }
}

TEST(TextParserV6, MalformedFieldsGiveOneClearError) {
  const std::string cl = "cluster id = 1,0,0\ncluster cta = 1,0,0\ncluster rank = 1\n";
  const std::pair<std::string, const char*> cases[] = {
      {block("0010 ffffffff 0 EXIT 0 0 0 Vals\n"), "expected Val or NoVal after the immediates, got 'Vals'"},
      {block("0010 ffffffff 1 R2 MOV 1 R3 0 0 Val 5 1 2 3 4 5 1 7\n"), "register value count 5 (expected 1 or 32)"},
      {block("0010 ffffffff 1 R2 MOV 1 R3 0 0 Val 1 0x5\n"), "line ends before register value count"},
      {block("0010 ffffffff 1 R2 MOV 1 R3 0 0 Val 1 0x5 1 zz\n"), "bad hex register value 'zz'"},
      {block("0010 ffffffff 0 EXIT 0 0 0 NoVal extra\n"), "unexpected trailing field 'extra'"},
      {block("0010 ffffffff 1 R24 HGMMA.64x8x16.F32 2 R24 UR4 2 0 0 NoVal\n"), "GMMA commit-group flag 2"},
      {block("0010 ffffffff 0 UTMALDG.2D 2 UR6 UR8 16 0x400 0 8192 0 5 0x0 1 0 NoVal\n"),
       "unknown TMA address mode 5 (expected 3 or 4)"},
      {block("0010 ffffffff 0 UTMALDG.2D 2 UR6 UR8 16 0x400 2 8192 0 4 0x0 1 0 NoVal\n"), "TMA multicast flag 2"},
      {block("0010 ffffffff 0 UTMALDG.2D 2 UR6 UR8 16 0x400 0 8192 0 3 3 0x1 0x2\n"),
       "line ends before TMA transfer address"},
      {block("0010 ffffffff 0 UTMALDG.2D 2 UR6 UR8 16 0x400 0 8192 0 3 99999999 0x1\n"),
       "implausible TMA transfer count 99999999"},
      {block("0010 ffffffff 0 EXIT 0 0 0 NoVal\n", "cluster id = 1,0,0\ncluster rank = 1\n"),
       "some of its cluster lines only"},
      {block("0010 ffffffff 0 EXIT 0 0 0 NoVal\n", cl + "cluster rank = 1\n"), "second 'cluster rank =' line"},
      {block("0010 ffffffff 0 EXIT 0 0 0 NoVal\n", "cluster id = 1,0\ncluster cta = 1,0,0\ncluster rank = 1\n"),
       "bad cluster id '1,0'"},
      {block("0010 ffffffff 0 EXIT 0 0 0 NoVal\n", "cluster size = 2\n"), "unknown block line 'cluster size = 2'"},
      {"#BEGIN_TB\nthread block = 3,0,0\nwarp = 0\ninsts = 1\ncluster rank = 0\n0010 ffffffff 0 EXIT 0 0 0\n"
       "#END_TB\n",
       "a cluster line belongs after 'thread block =' and before the first 'warp ='"},
  };
  for (const auto& [body, expect] : cases) {
    SCOPED_TRACE(expect);
    StaticTable t;
    try {
      parse_one(body, t);
      ADD_FAILURE() << "no error";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("v6.traceg:", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace lockstep
