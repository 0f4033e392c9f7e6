// The .lst container: chunk codec, writer, reader, block stream, and the
// reader's answers to damaged files.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <thread>

#include "frontend/container/block_index.h"
#include "frontend/container/block_stream.h"
#include "frontend/container/chunk_codec.h"
#include "frontend/container/container_reader.h"
#include "frontend/container/container_writer.h"
#include "frontend/container/crc32.h"
#include "frontend/container/format.h"
#include "frontend/container/frame_codec.h"
#include "frontend/container/lz4_frame.h"
#include "frontend/container/manifest_codec.h"
#include "frontend/trace/trace_error.h"
#include "tests/test_paths.h"
#include "trace.pb.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;

// ---------------------------------------------------------------------------
// Building traces by hand

struct Ids {
  uint32_t iadd, mov, bra, exit, ldg, stg, lds, atom;
};

Ids fill_table(StaticTable& t) {
  const uint32_t op_iadd = t.intern_opcode("IADD3");
  const uint32_t op_mov = t.intern_opcode("MOV");
  const uint32_t op_bra = t.intern_opcode("BRA");
  const uint32_t op_exit = t.intern_opcode("EXIT");
  const uint32_t op_ldg = t.intern_opcode("LDG.E.64");
  const uint32_t op_stg = t.intern_opcode("STG.E");
  const uint32_t op_lds = t.intern_opcode("LDS.U8");
  const uint32_t op_atom = t.intern_opcode("ATOMG.E.ADD.STRONG.GPU");
  auto add = [&](uint64_t pc, uint32_t op, std::vector<RegRef> dsts, std::vector<RegRef> srcs, uint32_t width,
                 bool imm = false, int64_t immv = 0, bool line = false, uint32_t linev = 0) {
    StaticInstruction s;
    s.pc = pc;
    s.opcode_id = op;
    s.dsts = std::move(dsts);
    s.srcs = std::move(srcs);
    s.mem_width = width;
    s.has_immediate = imm;
    s.immediate = immv;
    s.has_line = line;
    s.line = linev;
    return t.intern(s);
  };
  Ids ids;
  ids.iadd = add(0x10, op_iadd, {{RegKind::kR, 4}}, {{RegKind::kR, 2}, {RegKind::kUR, 6}, {RegKind::kR, 255}}, 0,
                 true, -12345678901LL, true, 42);
  ids.mov = add(0x20, op_mov, {{RegKind::kP, 1}}, {{RegKind::kUP, 0}}, 0);
  ids.ldg = add(0x30, op_ldg, {{RegKind::kR, 8}}, {{RegKind::kR, 2}}, 8);
  ids.stg = add(0x40, op_stg, {}, {{RegKind::kR, 2}, {RegKind::kR, 8}}, 4, false, 0, true, 7);
  ids.lds = add(0x50, op_lds, {{RegKind::kR, 9}}, {{RegKind::kR, 3}}, 1);
  ids.atom = add(0x60, op_atom, {{RegKind::kR, 10}}, {{RegKind::kR, 2}, {RegKind::kR, 11}}, 4);
  ids.bra = add(0x70, op_bra, {}, {}, 0, true, 0x10);
  ids.exit = add(0x80, op_exit, {}, {}, 0);
  return ids;
}

struct WarpBuilder {
  WarpTrace w;
  explicit WarpBuilder(uint32_t id) { w.warp_id = id; }
  WarpBuilder& op(uint32_t sid, uint32_t mask) {
    w.push(sid, mask);
    return *this;
  }
  WarpBuilder& mem(uint32_t sid, uint32_t mask, const std::vector<uint64_t>& lane_addrs) {
    EXPECT_EQ(lane_addrs.size(), size_t(std::popcount(mask)));
    w.push(sid, mask, lane_addrs);
    return *this;
  }
  WarpBuilder& strided(uint32_t sid, uint32_t mask, uint64_t base, int64_t stride) {
    std::vector<uint64_t> a;
    for (int i = 0; i < std::popcount(mask); ++i) a.push_back(base + uint64_t(stride) * uint64_t(i));
    return mem(sid, mask, a);
  }
};

// A block exercising every packing case.
BlockTrace edge_block(const Ids& ids, Dim3 id) {
  BlockTrace b;
  b.id = id;
  WarpBuilder w0(0);
  w0.op(ids.iadd, 0xffffffff)
      .op(ids.iadd, 0xffffffff)
      .strided(ids.ldg, 0xffffffff, 0x7f0000001000, 8)  // uniform stride
      .mem(ids.ldg, 0, {})                              // memory, no lanes
      .mem(ids.stg, 0x00010000, {0x7f0000002000})       // single lane
      .strided(ids.stg, 0x0000ffff, 0x7f0000003000, -4)  // negative stride
      .mem(ids.lds, 0x8000000f, {0x10, 0x8, 0x100, 0x0, 0xffffffffffffffffULL})  // explicit, negative deltas
      .strided(ids.atom, 0xf0f0f0f0, 0xfffffffffffffff0ULL, 0x10)  // wraps around 2^64
      .mem(ids.ldg, 0x3, {0xffffffffffffffffULL, 0x0})             // huge then zero
      .op(ids.mov, 0x1)
      .op(ids.mov, 0x1)
      .op(ids.mov, 0)
      .strided(ids.ldg, 0xffffffff, 0, 0)  // all lanes one address
      .op(ids.bra, 0xffffffff)
      .op(ids.exit, 0xffffffff);
  b.warps.push_back(w0.w);
  b.warps.push_back(WarpTrace{});  // an empty warp
  b.warps.back().warp_id = 1;
  WarpBuilder w2(7);  // warp ids need not be dense
  w2.op(ids.exit, 0x80000000);
  b.warps.push_back(w2.w);
  return b;
}

// Pseudo-random blocks: many warps, mixed instructions.
BlockTrace random_block(const Ids& ids, Dim3 id, uint32_t warps, uint32_t insts, std::mt19937_64& rng) {
  BlockTrace b;
  b.id = id;
  const uint32_t all[] = {ids.iadd, ids.mov, ids.ldg, ids.stg, ids.lds, ids.atom, ids.bra};
  for (uint32_t w = 0; w < warps; ++w) {
    WarpBuilder wb(w);
    uint32_t mask = 0xffffffff;
    uint64_t base = 0x7f0000000000ULL + (uint64_t(w) << 20);
    for (uint32_t i = 0; i < insts; ++i) {
      const uint32_t sid = all[rng() % std::size(all)];
      if (rng() % 16 == 0) mask = uint32_t(rng());
      if (sid == ids.ldg || sid == ids.stg || sid == ids.lds || sid == ids.atom) {
        switch (rng() % 4) {
          case 0:
            wb.strided(sid, mask, base + (rng() % 4096) * 4, 4);
            break;
          case 1:
            wb.strided(sid, mask, base - (rng() % 4096) * 8, -8);
            break;
          case 2: {
            std::vector<uint64_t> a;
            for (int l = 0; l < std::popcount(mask); ++l) a.push_back(rng());
            wb.mem(sid, mask, a);
            break;
          }
          default:
            wb.strided(sid, mask, rng(), int64_t(rng() % 64) - 32);
        }
      } else {
        wb.op(sid, mask);
      }
    }
    wb.op(ids.exit, mask);
    b.warps.push_back(std::move(wb.w));
  }
  return b;
}

void expect_same_block(const BlockTrace& want, const BlockTrace& got, const StaticTable& table) {
  ASSERT_EQ(want.id, got.id);
  ASSERT_EQ(want.warps.size(), got.warps.size());
  for (size_t w = 0; w < want.warps.size(); ++w) {
    const WarpTrace& a = want.warps[w];
    const WarpTrace& b = got.warps[w];
    ASSERT_EQ(a.warp_id, b.warp_id);
    ASSERT_EQ(a.insts.size(), b.insts.size()) << "warp " << w;
    for (size_t i = 0; i < a.insts.size(); ++i) {
      ASSERT_EQ(a.insts[i].static_id, b.insts[i].static_id) << "warp " << w << " inst " << i;
      ASSERT_EQ(a.insts[i].active_mask, b.insts[i].active_mask) << "warp " << w << " inst " << i;
      LaneBuffer bufa, bufb;
      const auto la = a.lane_addresses(a.insts[i], table, bufa);
      const auto lb = b.lane_addresses(b.insts[i], table, bufb);
      ASSERT_TRUE(std::equal(la.begin(), la.end(), lb.begin(), lb.end())) << "warp " << w << " inst " << i;
    }
  }
}

void expect_same_table(const StaticTable& a, const StaticTable& b) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.opcode_count(), b.opcode_count());
  for (uint32_t i = 0; i < a.opcode_count(); ++i) EXPECT_EQ(a.opcode(i), b.opcode(i));
  for (uint32_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a.inst(i).same_static(b.inst(i))) << "static " << i;
    EXPECT_EQ(a.inst(i).traits.space, b.inst(i).traits.space);
    EXPECT_EQ(a.inst(i).traits.op, b.inst(i).traits.op);
  }
}

// Runs `f` and returns the TraceError message it throws (fails if none).
template <class F>
std::string trace_error(F&& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a TraceError: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no TraceError thrown";
  return {};
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack)

std::string compress_chunk(const proto::BlockChunk& msg) {
  std::string raw;
  EXPECT_TRUE(msg.SerializeToString(&raw));
  return lz4_compress_frame(raw);
}

// ---------------------------------------------------------------------------
// CRC and LZ4 frames

TEST(ChunkCodec, Crc32KnownValues) {
  EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32("", 0), 0u);
  const std::string s = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(crc32(s.data(), s.size()), 0x414FA339u);
  // Chaining through the seed equals one pass, for every split.
  for (size_t k = 0; k <= s.size(); ++k)
    EXPECT_EQ(crc32(s.data() + k, s.size() - k, crc32(s.data(), k)), 0x414FA339u) << k;
  // Long buffers (the carry-less multiplication path) at every alignment
  // against a bit-at-a-time reference.
  auto reference = [](const unsigned char* p, size_t n, uint32_t seed) {
    uint32_t c = ~seed;
    while (n--) {
      c ^= *p++;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
  };
  std::mt19937 rng(4);
  std::string buf(5000, '\0');
  for (char& c : buf) c = char(rng());
  for (int t = 0; t < 2000; ++t) {
    const size_t off = rng() % 32, n = t < 200 ? size_t(t) : rng() % (buf.size() - 32);
    const uint32_t seed = t % 2 ? rng() : 0;
    const auto* p = reinterpret_cast<const unsigned char*>(buf.data()) + off;
    ASSERT_EQ(crc32(p, n, seed), reference(p, n, seed)) << "offset " << off << " size " << n;
  }
}

TEST(ChunkCodec, Lz4FrameRoundTripAndErrors) {
  std::string raw;
  std::mt19937 rng(1);
  for (int i = 0; i < 300000; ++i) raw.push_back(char(i % 7 == 0 ? rng() : i % 13));
  const std::string frame = lz4_compress_frame(raw);
  EXPECT_LT(frame.size(), raw.size());
  EXPECT_EQ(lz4_decompress_frame(frame, raw.size(), "f"), raw);
  EXPECT_EQ(lz4_decompress_frame(lz4_compress_frame(""), 0, "f"), "");

  EXPECT_CONTAINS(trace_error([&] { lz4_decompress_frame(frame, raw.size() - 1, "where"); }), "where: ");
  EXPECT_CONTAINS(trace_error([&] { lz4_decompress_frame(frame, raw.size() - 1, "where"); }), "exceeds the limit");
  for (size_t cut : {size_t(0), size_t(3), size_t(10), frame.size() / 2, frame.size() - 1})
    EXPECT_CONTAINS(trace_error([&] { lz4_decompress_frame(frame.substr(0, cut), raw.size(), "w"); }), "w: ");
  EXPECT_CONTAINS(trace_error([&] { lz4_decompress_frame(frame.substr(0, frame.size() - 1), raw.size(), "w"); }),
                  "truncated");
  EXPECT_CONTAINS(trace_error([&] { lz4_decompress_frame(frame + "x", raw.size(), "w"); }), "after the LZ4 frame");
  std::string bad = frame;
  bad[frame.size() / 2] ^= 0x40;
  EXPECT_CONTAINS(trace_error([&] { lz4_decompress_frame(bad, raw.size(), "w"); }), "w: ");
  EXPECT_CONTAINS(trace_error([&] { lz4_decompress_frame("not a frame at all", 100, "w"); }), "w: ");
  // A second decode on the same thread after errors still works.
  EXPECT_EQ(lz4_decompress_frame(frame, raw.size(), "f"), raw);
}

// ---------------------------------------------------------------------------
// Chunk codec

TEST(ChunkCodec, RoundTripEdgeCases) {
  StaticTable table;
  const Ids ids = fill_table(table);
  std::vector<BlockTrace> blocks = {edge_block(ids, {0, 0, 0}), edge_block(ids, {1, 0, 0})};
  std::mt19937_64 rng(7);
  blocks.push_back(random_block(ids, {2, 3, 4}, 64, 100, rng));  // many warps
  const EncodedChunk chunk = encode_chunk(3, 17, blocks, table);
  EXPECT_EQ(chunk.kernel_index, 3u);
  EXPECT_EQ(chunk.first_block, 17u);
  ASSERT_EQ(chunk.blocks.size(), 3u);

  uint64_t warp_insts = 0, mem_insts = 0, thread_insts = 0;
  std::vector<uint64_t> counts(table.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    EXPECT_EQ(chunk.blocks[b].id, blocks[b].id);
    EXPECT_EQ(chunk.blocks[b].warps, blocks[b].warps.size());
    EXPECT_EQ(chunk.blocks[b].warp_insts, blocks[b].warp_insts());
    for (const WarpTrace& w : blocks[b].warps)
      for (const WarpInstruction& wi : w.insts) {
        ++warp_insts;
        mem_insts += table.inst(wi.static_id).is_memory();
        thread_insts += std::popcount(wi.active_mask);
        ++counts[wi.static_id];
      }
  }
  EXPECT_EQ(chunk.warp_insts, warp_insts);
  EXPECT_EQ(chunk.mem_insts, mem_insts);
  EXPECT_EQ(chunk.thread_insts, thread_insts);
  EXPECT_EQ(chunk.static_counts, counts);

  std::vector<BlockTrace> out;
  EXPECT_EQ(decode_chunk(chunk.frame, table, out, "t"), 3u);
  ASSERT_EQ(out.size(), blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) expect_same_block(blocks[b], out[b], table);

  // Decoding into a vector that held something bigger reuses it correctly.
  std::vector<BlockTrace> big = {random_block(ids, {9, 9, 9}, 80, 300, rng), random_block(ids, {8, 8, 8}, 3, 3, rng),
                                 random_block(ids, {7, 7, 7}, 2, 2, rng), random_block(ids, {6, 6, 6}, 1, 1, rng)};
  decode_chunk(chunk.frame, table, big, "t");
  ASSERT_EQ(big.size(), blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) expect_same_block(blocks[b], big[b], table);
}

// Cluster places (version 6 traces) round-trip per block, blocks without one
// included; a chunk without any keeps an empty stream; damage is refused.
TEST(ChunkCodec, ClusterPlacesRoundTrip) {
  StaticTable table;
  const Ids ids = fill_table(table);
  std::vector<BlockTrace> blocks = {edge_block(ids, {4, 0, 0}), edge_block(ids, {5, 0, 0}), edge_block(ids, {6, 1, 0})};
  blocks[0].has_cluster = true;
  blocks[0].cluster = ClusterPlace{{2, 0, 0}, {0, 0, 0}, 0};
  blocks[1].has_cluster = true;
  blocks[1].cluster = ClusterPlace{{2, 0, 0}, {1, 0, 0}, 1};
  std::vector<BlockTrace> out;
  ASSERT_EQ(decode_chunk(encode_chunk(0, 0, blocks, table).frame, table, out, "t"), 0u);  // (the kernel index)
  ASSERT_EQ(out.size(), 3u);
  for (size_t b = 0; b < 3; ++b) {
    EXPECT_EQ(out[b].has_cluster, blocks[b].has_cluster) << b;
    EXPECT_EQ(out[b].cluster, blocks[b].cluster) << b;
  }
  proto::BlockChunk msg;
  ASSERT_TRUE(msg.ParseFromString(lz4_decompress_frame(encode_chunk(0, 0, blocks, table).frame, 1 << 24, "t")));
  EXPECT_FALSE(msg.clusters().empty());
  // Decoding into blocks that had cluster places, from a chunk without any.
  for (BlockTrace& b : blocks) b.has_cluster = false;
  proto::BlockChunk none;
  ASSERT_TRUE(none.ParseFromString(lz4_decompress_frame(encode_chunk(0, 0, blocks, table).frame, 1 << 24, "t")));
  EXPECT_TRUE(none.clusters().empty());
  decode_chunk(encode_chunk(0, 0, blocks, table).frame, table, out, "t");
  for (const BlockTrace& b : out) EXPECT_FALSE(b.has_cluster);

  const std::pair<std::function<void(std::string&)>, const char*> cases[] = {
      {[](std::string& c) { c[0] = 2; }, "cluster flag 2 (expected 0 or 1)"},
      {[](std::string& c) { c.pop_back(); }, "clusters stream ends early"},
      {[](std::string& c) { c.push_back(0); }, "1 unused bytes in the clusters stream"},
      {[](std::string& c) { c.replace(1, 1, std::string("\xff\xff\xff\xff\x7f")); }, "clusters stream: value 34359738367 out of range"},
  };
  for (const auto& [damage, expect] : cases) {
    proto::BlockChunk bad = msg;
    damage(*bad.mutable_clusters());
    std::string raw;
    bad.SerializeToString(&raw);
    EXPECT_CONTAINS(trace_error([&] { decode_chunk(lz4_compress_frame(raw), table, out, "c"); }), expect);
  }
}

// Warps of one program: a loop whose strided load moves on by 128 bytes per
// iteration, a gather that repeats its lane pattern, and a store; warp w of
// block b works on addresses shifted by b * 0x10000 + w * 0x1000. Where
// `diverge`, one iteration runs with half the lanes.
WarpTrace loop_warp(const Ids& ids, uint32_t b, uint32_t w, uint32_t iters, bool diverge) {
  WarpBuilder wb(w);
  const uint64_t at = 0x7f0000000000ULL + b * 0x10000 + w * 0x1000;
  for (uint32_t it = 0; it < iters; ++it) {
    const uint32_t mask = diverge && it == 3 ? 0x0000ffff : 0xffffffff;
    wb.op(ids.iadd, mask);
    wb.strided(ids.ldg, mask, at + it * 128, 4);
    std::vector<uint64_t> gather;
    for (int l = 0; l < std::popcount(mask); ++l) gather.push_back(at + 0x800 + uint64_t(l * l * 12 + it * 8));
    wb.mem(ids.lds, mask, gather);
    wb.op(ids.bra, mask);
  }
  wb.strided(ids.stg, 0x0000ffff, at + 0x900, 4);
  wb.op(ids.exit, 0xffffffff);
  return std::move(wb.w);
}

TEST(ChunkCodec, RepeatedWarpsCostLittle) {
  StaticTable table;
  const Ids ids = fill_table(table);
  std::vector<BlockTrace> blocks;
  for (uint32_t b = 0; b < 4; ++b) {
    BlockTrace bt;
    bt.id = {b, 1, 0};
    for (uint32_t w = 0; w < 8; ++w) bt.warps.push_back(loop_warp(ids, b, w, 20, b == 2 && w == 5));
    blocks.push_back(std::move(bt));
  }
  const EncodedChunk all = encode_chunk(0, 0, blocks, table);
  std::vector<BlockTrace> out;
  EXPECT_EQ(decode_chunk(all.frame, table, out, "t"), 0u);
  ASSERT_EQ(out.size(), blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) expect_same_block(blocks[b], out[b], table);

  BlockTrace one;
  one.warps.push_back(loop_warp(ids, 0, 0, 20, false));
  const EncodedChunk single = encode_chunk(0, 0, std::span(&one, 1), table);
  // 32 warps cost far less than 32 times one: the 31 repeats are references.
  EXPECT_LT(all.frame.size(), 4 * single.frame.size()) << all.frame.size() << " vs " << single.frame.size();

  // A caller-held scratch decodes chunks of different tables in turn.
  ChunkScratch scratch;
  StaticTable other;
  other.intern_opcode("NOP");
  StaticInstruction nop;
  other.intern(nop);
  const Ids other_ids = fill_table(other);
  BlockTrace ob;
  ob.warps.push_back(loop_warp(other_ids, 0, 0, 5, true));
  ob.warps.push_back(loop_warp(other_ids, 0, 1, 5, true));
  const EncodedChunk oc = encode_chunk(1, 0, std::span(&ob, 1), other);
  const ChunkTableInfo info(table), other_info(other);
  EXPECT_EQ(info.mem_entries, 4u);
  for (int rep = 0; rep < 3; ++rep) {
    decode_chunk(all.frame, info, out, "t", scratch);
    for (size_t b = 0; b < blocks.size(); ++b) expect_same_block(blocks[b], out[b], table);
    EXPECT_EQ(decode_chunk(oc.frame, other_info, out, "t", scratch), 1u);
    ASSERT_EQ(out.size(), 1u);
    expect_same_block(ob, out[0], other);
  }
}

// Decoded storage is recycled from chunk to chunk; a warp that once held a
// long trace must not keep that capacity when it is decoded again with a
// short one (else a run's memory grows with every long warp it has decoded).
TEST(ChunkCodec, RedecodingSmallBlocksGivesBackLargeStorage) {
  StaticTable table;
  const Ids ids = fill_table(table);
  std::mt19937_64 rng(5);
  const std::vector<BlockTrace> large = {random_block(ids, {0, 0, 0}, 4, 4000, rng)};
  const std::vector<BlockTrace> small = {random_block(ids, {1, 0, 0}, 4, 12, rng)};
  std::vector<BlockTrace> out;
  decode_chunk(encode_chunk(0, 0, large, table).frame, table, out, "t");
  ASSERT_GE(out[0].warps[0].insts.capacity(), 4000u);
  decode_chunk(encode_chunk(0, 0, small, table).frame, table, out, "t");
  expect_same_block(small[0], out[0], table);
  auto at_most_an_eighth_spare = [](size_t capacity, size_t n) { return capacity <= std::max<size_t>(64, n + n / 8); };
  for (const WarpTrace& w : out[0].warps) {
    EXPECT_TRUE(at_most_an_eighth_spare(w.insts.capacity(), w.insts.size()));
    EXPECT_TRUE(at_most_an_eighth_spare(w.addrs.bytes() / sizeof(uint32_t), w.addrs.words()));
  }
  // A block a third as long as the one before does not keep its storage either.
  const std::vector<BlockTrace> third = {random_block(ids, {2, 0, 0}, 4, 1333, rng)};
  decode_chunk(encode_chunk(0, 0, large, table).frame, table, out, "t");
  decode_chunk(encode_chunk(0, 0, third, table).frame, table, out, "t");
  expect_same_block(third[0], out[0], table);
  for (const WarpTrace& w : out[0].warps) {
    EXPECT_TRUE(at_most_an_eighth_spare(w.insts.capacity(), w.insts.size()));
    EXPECT_TRUE(at_most_an_eighth_spare(w.addrs.bytes() / sizeof(uint32_t), w.addrs.words()));
  }
}

TEST(BlockTrace, ReleaseIfLargeKeepsSmallStorageOnly) {
  StaticTable table;
  const Ids ids = fill_table(table);
  std::mt19937_64 rng(6);
  BlockTrace small = random_block(ids, {0, 0, 0}, 2, 10, rng);
  BlockTrace large = random_block(ids, {0, 0, 0}, 4, 4000, rng);
  release_if_large(small, size_t(64) << 10);
  release_if_large(large, size_t(64) << 10);
  EXPECT_EQ(small.warps.size(), 2u);  // kept, to be decoded into
  EXPECT_TRUE(large.warps.empty());
  EXPECT_EQ(large.warps.capacity(), 0u);
}

TEST(ChunkCodec, EncodeRejectsBadInput) {
  StaticTable table;
  const Ids ids = fill_table(table);
  BlockTrace b;
  WarpBuilder w(0);
  w.op(table.size(), 1);
  b.warps.push_back(w.w);
  EXPECT_CONTAINS(trace_error([&] { encode_chunk(0, 0, std::span(&b, 1), table); }), "static id");
  BlockTrace c;
  WarpTrace wt;
  wt.insts.push_back({ids.ldg, 0xff, 0});  // 8 lanes, no addresses
  c.warps.push_back(wt);
  EXPECT_CONTAINS(trace_error([&] { encode_chunk(0, 0, std::span(&c, 1), table); }), "addresses");
}

TEST(ChunkCodec, DecodeRejectsStaticIdOutsideTable) {
  StaticTable table;
  const Ids ids = fill_table(table);
  const BlockTrace b = edge_block(ids, {0, 0, 0});
  const EncodedChunk chunk = encode_chunk(0, 0, std::span(&b, 1), table);
  StaticTable small;
  small.intern_opcode("IADD3");
  StaticInstruction s;
  small.intern(s);
  std::vector<BlockTrace> out;
  const std::string msg = trace_error([&] { decode_chunk(chunk.frame, small, out, "file: kernel 0 chunk 0"); });
  EXPECT_CONTAINS(msg, "file: kernel 0 chunk 0: ");
  EXPECT_CONTAINS(msg, "static id");
}

// The streams of a BlockChunk, written by hand (proto/trace.proto, BlockChunk).
struct ChunkParts {
  uint32_t num_blocks = 0;
  uint64_t num_insts = 0;
  std::string blocks, warps, id_runs, mask_runs, masks, kinds, values;

  static void u(std::string& s, uint64_t v) {
    while (v >= 0x80) {
      s.push_back(char(v | 0x80));
      v >>= 7;
    }
    s.push_back(char(v));
  }
  static void z(std::string& s, int64_t v) { u(s, (uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
  static void le32(std::string& s, uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(char(v >> (8 * i)));
  }
  proto::BlockChunk msg() const {
    proto::BlockChunk m;
    m.set_num_blocks(num_blocks);
    m.set_num_insts(num_insts);
    m.set_blocks(blocks);
    m.set_warps(warps);
    m.set_id_runs(id_runs);
    m.set_mask_runs(mask_runs);
    m.set_masks(masks);
    m.set_addr_kinds(kinds);
    m.set_addr_values(values);
    return m;
  }
};

TEST(ChunkCodec, DecodeRejectsInconsistentStreams) {
  StaticTable table;
  const Ids ids = fill_table(table);
  ASSERT_EQ(ids.ldg, ids.iadd + 2);  // ids: iadd, mov, ldg, stg, ...
  ASSERT_EQ(ids.stg, ids.ldg + 1);
  // A valid base: one block of two warps running iadd (mask f), ldg (mask f,
  // uniform), stg (mask 1, one lane). Warp 0 spells everything out; warp 1
  // refers to warp 0 and shifts its addresses by 0x100.
  using P = ChunkParts;
  auto base = [&] {
    P p;
    p.num_blocks = 1;
    p.num_insts = 6;
    P::z(p.blocks, 0), P::z(p.blocks, 0), P::z(p.blocks, 0), P::u(p.blocks, 2);
    P::z(p.warps, 0), P::u(p.warps, 0), P::u(p.warps, 3);  // warp 0: own control, 3 instructions
    P::z(p.warps, 0), P::u(p.warps, 1);                    // warp 1: as the warp before
    P::z(p.id_runs, int64_t(ids.iadd)), P::u(p.id_runs, 0);  // iadd
    P::z(p.id_runs, int64_t(ids.ldg) - int64_t(ids.iadd + 1)), P::u(p.id_runs, 1);  // ldg, stg
    P::u(p.mask_runs, 1), p.masks.push_back(0), P::le32(p.masks, 0xf);
    P::u(p.mask_runs, 0), p.masks.push_back(0), P::le32(p.masks, 0x1);
    p.kinds = {char(0), char(1), char(2), char(2)};  // STRIDE, LANES; REF, REF
    P::z(p.values, 0x1000), P::z(p.values, 4), P::z(p.values, -0x100);
    P::z(p.values, 0x100), P::z(p.values, 0);
    return p;
  };
  std::vector<BlockTrace> out;
  {
    decode_chunk(compress_chunk(base().msg()), table, out, "w");
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].warps.size(), 2u);
    for (int w = 0; w < 2; ++w) {
      const WarpTrace& wt = out[0].warps[size_t(w)];
      EXPECT_EQ(wt.warp_id, uint32_t(w));
      ASSERT_EQ(wt.insts.size(), 3u);
      const uint64_t shift = w * 0x100;
      LaneBuffer buf;
      const auto a = wt.lane_addresses(wt.insts[1], table, buf);
      EXPECT_EQ(std::vector<uint64_t>(a.begin(), a.end()),
                (std::vector<uint64_t>{0x1000 + shift, 0x1004 + shift, 0x1008 + shift, 0x100c + shift}));
      const auto s = wt.lane_addresses(wt.insts[2], table, buf);
      EXPECT_EQ(std::vector<uint64_t>(s.begin(), s.end()), (std::vector<uint64_t>{0xf00 + shift}));
    }
  }
  struct Case {
    const char* what;
    std::function<void(P&)> damage;
    const char* expect;
    bool in_warp0;  // the message names block 0 warp 0
  };
  const std::vector<Case> cases = {
      {"declared count", [](P& p) { p.num_insts = 7; }, "declares 7 warp instructions but holds 6", false},
      {"blocks", [](P& p) { p.num_blocks = 2; }, "2 blocks do not fit", false},
      {"warp count", [](P& p) { p.blocks.back() = 9; }, "9 warps do not fit", false},
      {"count", [](P& p) { p.warps[2] = 4; }, "id_runs stream ends early", true},
      {"count huge", [](P& p) { p.warps[2] = 100; }, "id_runs stream ends early", true},
      {"count too big", [](P& p) { p.warps.replace(2, 1, std::string("\xff\xff\xff\xff\x7f")); }, "34359738367 instructions in one warp", true},
      {"id run long", [](P& p) { p.id_runs[3] = 2; }, "instruction 1: id run of length 3 does not fit 3", true},
      {"id range", [](P& p) { p.id_runs[2] = 100; }, "static id 51 outside the kernel table (8 entries)", true},
      {"id negative", [](P& p) { p.id_runs[0] = 1; }, "static id 4294967295 outside", true},
      {"mask run long", [](P& p) { p.mask_runs[1] = 1; }, "instruction 2: mask run of length 2 does not fit", true},
      {"masks short", [](P& p) { p.masks.pop_back(); }, "masks stream ends early", true},
      {"mask from too far back", [](P& p) { p.masks.resize(5), p.masks.push_back(2); },
       "instruction 2: mask of the run 2 back, after 1 runs", true},
      {"kind", [](P& p) { p.kinds[1] = 7; }, "instruction 2: unknown address kind 7", true},
      {"ref without reference", [](P& p) { p.kinds[0] = 2; }, "REF address record in a warp without", true},
      {"repeat without earlier", [](P& p) { p.kinds[1] = 3; }, "REPEAT address record without an earlier", true},
      {"stride of one lane", [](P& p) { p.kinds[1] = 0; }, "stride address record for a single lane", true},
      {"reference too far", [](P& p) { p.warps.back() = 2; }, "refers to the warp 2 places back", false},
      {"missing record", [](P& p) { p.kinds.pop_back(); }, "addr_kinds stream ends early", false},
      {"values short", [](P& p) { p.values.pop_back(); }, "addr_values stream ends early", false},
      {"extra values", [](P& p) { P::z(p.values, 5); }, "1 unused bytes in the addr_values stream", false},
      {"extra kinds", [](P& p) { p.kinds.push_back(0); }, "1 unused bytes in the addr_kinds stream", false},
      {"extra runs", [](P& p) { P::u(p.id_runs, 0); }, "1 unused bytes in the id_runs stream", false},
      {"bad varint", [](P& p) { p.warps.insert(2, std::string(10, '\xff')); }, "warps stream: bad varint", true},
      {"block id range", [](P& p) {
         p.blocks.clear();
         P::z(p.blocks, int64_t(1) << 40), P::z(p.blocks, 0), P::z(p.blocks, 0), P::u(p.blocks, 2);
       }, "blocks stream: value 1099511627776 out of range", false},
  };
  for (const Case& c : cases) {
    P p = base();
    c.damage(p);
    const std::string m = trace_error([&] { decode_chunk(compress_chunk(p.msg()), table, out, "file: kernel 2 chunk 5"); });
    EXPECT_CONTAINS(m, "file: kernel 2 chunk 5: ") << c.what;
    if (c.in_warp0) {
      EXPECT_CONTAINS(m, "file: kernel 2 chunk 5: block 0 warp 0: ") << c.what;
    }
    EXPECT_CONTAINS(m, c.expect) << c.what;
  }
  EXPECT_CONTAINS(trace_error([&] { decode_chunk(lz4_compress_frame("\xff\xff\xff\xff"), table, out, "w"); }),
                  "bad protobuf");
}

// Decoded output that is safe to use: static ids in the table, every memory
// instruction's address record inside the warp's address store.
void expect_well_formed(const std::vector<BlockTrace>& out, const StaticTable& table) {
  for (const BlockTrace& b : out)
    for (const WarpTrace& w : b.warps)
      for (const WarpInstruction& wi : w.insts) {
        ASSERT_LT(wi.static_id, table.size());
        if (table.inst(wi.static_id).is_memory()) {
          ASSERT_TRUE(w.addrs.holds(wi.addr_ref, uint32_t(std::popcount(wi.active_mask))));
        }
      }
}

TEST(ChunkCodec, SurvivesMutatedContent) {
  // Damage behind intact LZ4 checksums (as a buggy writer would produce):
  // decoding either succeeds or throws TraceError, and never reads out of bounds.
  StaticTable table;
  const Ids ids = fill_table(table);
  std::mt19937_64 rng(99);
  std::vector<BlockTrace> blocks = {edge_block(ids, {0, 0, 0}), random_block(ids, {1, 0, 0}, 4, 30, rng)};
  // Warps that refer to earlier ones and repeat their loop's addresses.
  BlockTrace loops;
  loops.id = {2, 0, 0};
  for (uint32_t w = 0; w < 4; ++w) loops.warps.push_back(loop_warp(ids, 2, w, 6, w == 2));
  blocks.push_back(std::move(loops));
  proto::BlockChunk msg;
  ASSERT_TRUE(msg.ParseFromString(lz4_decompress_frame(encode_chunk(0, 0, blocks, table).frame, 1 << 24, "t")));
  std::string raw;
  msg.SerializeToString(&raw);
  std::vector<BlockTrace> out;
  int ok = 0, rejected = 0;
  auto attempt = [&](const std::string& bad) {
    try {
      decode_chunk(lz4_compress_frame(bad), table, out, "m");
      ++ok;
      expect_well_formed(out, table);
    } catch (const TraceError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("m: ", 0), 0u) << e.what();
    }
  };
  // Bytes of the serialized message.
  for (int iter = 0; iter < 3000; ++iter) {
    std::string bad = raw;
    for (int k = 0, n = 1 + int(rng() % 4); k < n; ++k) bad[rng() % bad.size()] = char(rng());
    if (iter % 5 == 0) bad.resize(rng() % bad.size());
    attempt(bad);
  }
  // Bytes inside the streams, and the counts, with the message itself intact.
  for (int iter = 0; iter < 6000; ++iter) {
    proto::BlockChunk m = msg;
    std::string* streams[] = {m.mutable_blocks(),    m.mutable_warps(),      m.mutable_id_runs(),
                              m.mutable_mask_runs(), m.mutable_masks(),      m.mutable_addr_kinds(),
                              m.mutable_addr_values(), m.mutable_clusters()};
    for (int k = 0, n = 1 + int(rng() % 3); k < n; ++k) {
      switch (rng() % 8) {
        case 0:
          m.set_num_blocks(uint32_t(rng() % 8));
          break;
        case 1:
          m.set_num_insts(m.num_insts() + rng() % 3 - 1);
          break;
        default: {
          std::string& st = *streams[rng() % std::size(streams)];
          if (st.empty()) break;
          const size_t at = rng() % st.size();
          if (rng() % 4 == 0)
            st.resize(at);
          else
            st[at] = char(rng() % 3 == 0 ? rng() % 4 : rng());  // small values too: plausible kinds, refs, runs
        }
      }
    }
    std::string bad;
    m.SerializeToString(&bad);
    attempt(bad);
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(ok, 0);
  std::cout << "[ mutate   ] " << ok << " decoded, " << rejected << " rejected\n";
}

// Tracer version 6 fields of static instructions (flags 16 and up, the
// second immediates' column) survive the table's encoding; impossible flag
// combinations and a short column are refused.
TEST(ChunkCodec, KernelTableKeepsVersion6Fields) {
  StaticTable table;
  const uint32_t op_gmma = table.intern_opcode("HGMMA.64x128x16.F32");
  const uint32_t op_tma = table.intern_opcode("UTMALDG.2D");
  const uint32_t op_mov = table.intern_opcode("MOV");
  auto add = [&](uint64_t pc, uint32_t op, auto&& set) {
    StaticInstruction s;
    s.pc = pc;
    s.opcode_id = op;
    s.has_immediate = true;
    set(s);
    return table.intern(s);
  };
  add(0x10, op_gmma, [](StaticInstruction& s) { s.gmma_commit = 1, s.value_marker = ValueMarker::kNoVal; });
  add(0x20, op_gmma, [](StaticInstruction& s) { s.gmma_commit = 0, s.value_marker = ValueMarker::kValDropped; });
  add(0x30, op_tma, [](StaticInstruction& s) { s.transfer_dropped = true, s.value_marker = ValueMarker::kNoVal; });
  add(0x40, op_mov, [](StaticInstruction& s) { s.has_imm2 = true, s.imm2 = -9; });
  add(0x50, op_mov, [](StaticInstruction& s) { s.has_imm2 = true, s.imm2 = 0; });
  add(0x60, op_mov, [](StaticInstruction&) {});
  ASSERT_EQ(table.size(), 6u);
  const StaticTable back = decode_kernel_table_frame(encode_kernel_table_frame(2, table), 2, "t");
  expect_same_table(table, back);
  EXPECT_EQ(back.inst(0).gmma_commit, 1);
  EXPECT_EQ(back.inst(1).gmma_commit, 0);
  EXPECT_EQ(back.inst(1).value_marker, ValueMarker::kValDropped);
  EXPECT_TRUE(back.inst(2).transfer_dropped);
  EXPECT_EQ(back.inst(3).imm2, -9);
  EXPECT_TRUE(back.inst(4).has_imm2);
  EXPECT_EQ(back.inst(5).gmma_commit, -1);
  EXPECT_EQ(back.inst(5).value_marker, ValueMarker::kNone);

  proto::KernelTable msg;
  encode_kernel_table(2, table, msg);
  const std::vector<std::pair<std::function<void(proto::KernelTable&)>, const char*>> cases = {
      {[](proto::KernelTable& m) { m.set_flags(5, 1 | 32); }, "bad flags 33"},             // value without the field
      {[](proto::KernelTable& m) { m.set_flags(5, 1 | 64 | 128); }, "bad flags 193"},      // NoVal and Val
      {[](proto::KernelTable& m) { m.set_flags(5, 1 | 512); }, "bad flags 513"},           // flag value without flag
      {[](proto::KernelTable& m) { m.set_flags(5, 1 | 16 | 32); }, "second immediate column runs out"},
      {[](proto::KernelTable& m) { m.set_immediates2(0, 0); }, "zero second immediate stored"},
      {[](proto::KernelTable& m) { m.add_immediates2(3); }, "unused values"},
  };
  for (const auto& [damage, expect] : cases) {
    proto::KernelTable bad = msg;
    damage(bad);
    EXPECT_CONTAINS(trace_error([&] { decode_kernel_table(bad, "t"); }), expect);
  }
}

TEST(ChunkCodec, KernelTableRoundTripAndValidation) {
  StaticTable table;
  fill_table(table);
  const std::string frame = encode_kernel_table_frame(4, table);
  const StaticTable back = decode_kernel_table_frame(frame, 4, "t");
  expect_same_table(table, back);
  EXPECT_CONTAINS(trace_error([&] { decode_kernel_table_frame(frame, 5, "t"); }), "names kernel 4, expected 5");

  proto::KernelTable msg;
  encode_kernel_table(4, table, msg);
  ASSERT_EQ(msg.num_insts(), table.size());
  const std::vector<std::pair<std::function<void(proto::KernelTable&)>, const char*>> cases = {
      {[](proto::KernelTable& m) { m.set_opcode_ids(2, uint32_t(m.opcodes_size())); }, "opcode index"},
      {[](proto::KernelTable& m) { m.set_regs(1, 0x10000u << 2); }, "register number 65536 out of range"},
      {[](proto::KernelTable& m) { m.set_dst_counts(1, 100); }, "register column runs out"},
      {[](proto::KernelTable& m) { m.add_regs(0); }, "unused values"},
      {[](proto::KernelTable& m) { m.set_num_insts(m.num_insts() + 1); }, "column pc_deltas has 8 values for 9"},
      {[](proto::KernelTable& m) { m.mutable_flags()->RemoveLast(); }, "column flags has 7 values"},
      {[](proto::KernelTable& m) { m.set_flags(1, 2048); }, "bad flags 2048"},
      {[](proto::KernelTable& m) { m.set_flags(1, 4); }, "immediate column runs out"},
      {[](proto::KernelTable& m) { m.set_flags(1, 8); }, "line column runs out"},
      {[](proto::KernelTable& m) { m.set_line_deltas(0, -5); }, "line -5 out of range"},
      {[](proto::KernelTable& m) { m.add_opcodes(m.opcodes(0)); }, "listed twice"},
      {[](proto::KernelTable& m) { m.set_opcodes(1, ""); }, "is empty"},
  };
  for (const auto& [damage, expect] : cases) {
    proto::KernelTable bad = msg;
    damage(bad);
    EXPECT_CONTAINS(trace_error([&] { decode_kernel_table(bad, "t"); }), expect);
  }
  // Two identical rows.
  proto::KernelTable dup;
  dup.add_opcodes("NOP");
  dup.set_num_insts(2);
  for (int i = 0; i < 2; ++i) {
    dup.add_pc_deltas(i == 0 ? 0x10 : 0);
    dup.add_opcode_ids(0);
    dup.add_dst_counts(0);
    dup.add_src_counts(0);
    dup.add_mem_widths(0);
    dup.add_flags(0);
  }
  EXPECT_CONTAINS(trace_error([&] { decode_kernel_table(dup, "t"); }), "static instruction 1 duplicates");
}

TEST(ChunkCodec, XzFrameRoundTripAndErrors) {
  std::string raw;
  std::mt19937 rng(2);
  for (int i = 0; i < 300000; ++i) raw.push_back(char(i % 7 == 0 ? rng() : i % 13));
  const std::string frame = compress_frame(raw, FrameCodec::kXz);
  EXPECT_TRUE(is_xz_frame(frame));
  EXPECT_LT(frame.size(), raw.size() / 4);
  EXPECT_EQ(decompress_frame(frame, "f"), raw);
  EXPECT_EQ(decompress_frame(compress_frame("", FrameCodec::kXz), "f"), "");
  // The generic entry point reads LZ4 frames of either level as well.
  EXPECT_EQ(decompress_frame(compress_frame(raw, FrameCodec::kLz4), "f"), raw);
  EXPECT_EQ(decompress_frame(compress_frame(raw, FrameCodec::kLz4Hc), "f"), raw);
  EXPECT_LT(compress_frame(raw, FrameCodec::kLz4Hc).size(), compress_frame(raw, FrameCodec::kLz4).size());

  EXPECT_CONTAINS(trace_error([&] { decompress_frame(frame, "where", raw.size() - 1); }), "where: ");
  EXPECT_CONTAINS(trace_error([&] { decompress_frame(frame, "where", raw.size() - 1); }), "exceeds the limit");
  for (size_t cut : {size_t(6), size_t(10), frame.size() / 2, frame.size() - 1})
    EXPECT_CONTAINS(trace_error([&] { decompress_frame(frame.substr(0, cut), "w"); }), "w: ") << cut;
  EXPECT_CONTAINS(trace_error([&] { decompress_frame(frame.substr(0, frame.size() / 2), "w"); }), "truncated");
  EXPECT_CONTAINS(trace_error([&] { decompress_frame(frame + "x", "w"); }), "after the xz frame");
  for (size_t at : {size_t(7), size_t(20), frame.size() / 2, frame.size() - 10}) {
    std::string bad = frame;
    bad[at] ^= 0x40;
    EXPECT_CONTAINS(trace_error([&] { decompress_frame(bad, "w"); }), "w: ") << at;
  }
  EXPECT_EQ(decompress_frame(frame, "f"), raw);
}

TEST(ChunkCodec, DecodeRate) {
  // A typical-looking chunk: 8 blocks x 8 warps x 2000 instructions, a third memory.
  StaticTable table;
  const Ids ids = fill_table(table);
  std::vector<BlockTrace> blocks;
  std::mt19937_64 rng(3);
  for (uint32_t b = 0; b < 8; ++b) {
    BlockTrace bt;
    bt.id = {b, 0, 0};
    for (uint32_t w = 0; w < 8; ++w) {
      WarpBuilder wb(w);
      uint64_t addr = 0x7f0000000000ULL + w * 128;
      for (uint32_t i = 0; i < 2000; ++i) {
        switch (i % 6) {
          case 0:
            wb.strided(ids.ldg, 0xffffffff, addr += 4096, 8);
            break;
          case 3:
            wb.strided(ids.stg, i % 60 == 3 ? 0x0000ffff : 0xffffffff, addr + 512, 4);
            break;
          case 5:
            wb.op(ids.bra, 0xffffffff);
            break;
          default:
            wb.op(i % 2 ? ids.iadd : ids.mov, 0xffffffff);
        }
      }
      bt.warps.push_back(std::move(wb.w));
    }
    blocks.push_back(std::move(bt));
  }
  auto measure = [&](const char* what, const std::vector<BlockTrace>& in) {
    const EncodedChunk chunk = encode_chunk(0, 0, in, table);
    std::vector<BlockTrace> out;
    decode_chunk(chunk.frame, table, out, "rate");
    for (size_t b = 0; b < in.size(); ++b) expect_same_block(in[b], out[b], table);
    const auto t0 = std::chrono::steady_clock::now();
    int reps = 0;
    double secs = 0;
    do {
      decode_chunk(chunk.frame, table, out, "rate");
      ++reps;
      secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (secs < 0.5);
    const double rate = double(chunk.warp_insts) * reps / secs;
    std::cout << "[ rate     ] decode_chunk, " << what << ": " << rate / 1e6 << " M warp instructions/s ("
              << chunk.warp_insts << " per chunk, " << chunk.frame.size() << " bytes compressed)\n";
    EXPECT_GT(rate, 1e5);  // a sanity floor that sanitizer builds also clear
  };
  measure("regular", blocks);
  // Divergent: masks change now and then, one access in ten scattered over 16 KiB.
  std::vector<BlockTrace> divergent;
  const uint32_t all[] = {ids.iadd, ids.mov, ids.ldg, ids.iadd, ids.stg, ids.lds, ids.bra};
  for (uint32_t b = 0; b < 8; ++b) {
    BlockTrace bt;
    bt.id = {b, 0, 0};
    for (uint32_t w = 0; w < 8; ++w) {
      WarpBuilder wb(w);
      uint32_t mask = 0xffffffff;
      for (uint32_t i = 0; i < 2000; ++i) {
        if (rng() % 40 == 0) mask = rng() % 2 ? 0xffffffff : uint32_t(rng()) | 1;
        const uint32_t sid = all[i % std::size(all)];
        if (!table.inst(sid).is_memory()) {
          wb.op(sid, mask);
        } else if (rng() % 10 == 0) {
          std::vector<uint64_t> a;
          const uint64_t base = 0x7f0000000000ULL + (rng() % (1 << 20)) * 64;
          for (int l = 0; l < std::popcount(mask); ++l) a.push_back(base + (rng() % 4096) * 4);
          wb.mem(sid, mask, a);
        } else {
          wb.strided(sid, mask, 0x7f0000000000ULL + (rng() % (1 << 20)) * 64, 4);
        }
      }
      bt.warps.push_back(std::move(wb.w));
    }
    divergent.push_back(std::move(bt));
  }
  measure("divergent", divergent);
  // Worst case: a quarter of the accesses are random 64-bit addresses per lane.
  std::vector<BlockTrace> random;
  for (uint32_t b = 0; b < 8; ++b) random.push_back(random_block(ids, {b, 0, 0}, 8, 2000, rng));
  measure("random addresses", random);
}

// ---------------------------------------------------------------------------
// Writer and reader

KernelInfo kernel_info(uint32_t id, const std::string& name) {
  KernelInfo k;
  k.kernel_id = id;
  k.name = name;
  k.grid = {uint32_t(4 + id), 2, 1};
  k.block = {96, 1, 1};
  k.shmem_bytes = 1024 * id;
  k.nregs = 32 + id;
  k.binary_version = 86;
  k.cuda_stream_id = id % 2;
  k.shmem_base = 0x7f0000000000ULL;
  k.local_base = 0x7e0000000000ULL + id;
  k.nvbit_version = "1.5.5";
  k.tracer_version = 5;
  k.lineinfo = id % 2 == 1;
  k.header_fields = {{"kernel name", name}, {"kernel id", std::to_string(id)}, {"grid dim", "(4,2,1)"},
                     {"some unknown key", "value = with = equals"}};
  k.format_comment = "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
                     "[adrrescompress?] [mem_addresses] immediate";
  k.source_file = "kernel-" + std::to_string(id + 1) + ".traceg";
  k.raw_tracer_output = id == 2;
  return k;
}

TraceManifest make_manifest(uint32_t kernels) {
  TraceManifest m;
  m.source = "/some/where/traces/kernelslist.g";
  for (uint32_t i = 0; i < kernels; ++i) m.kernels.push_back(kernel_info(i + 1, "_Z6kernel" + std::to_string(i)));
  TraceCommand mc;
  mc.kind = TraceCommand::Kind::kMemcpy;
  mc.memcpy = {0x7f1234560000ULL, 4096};
  m.commands.push_back(mc);
  for (uint32_t i = 0; i < kernels; ++i) {
    TraceCommand kc;
    kc.kind = TraceCommand::Kind::kKernel;
    kc.kernel_index = i;
    m.commands.push_back(kc);
    if (i == 0) {
      mc.memcpy = {0xffffffffffff0000ULL, 0xffffffffULL * 3};
      m.commands.push_back(mc);
    }
  }
  return m;
}

void expect_same_manifest(const TraceManifest& a, const TraceManifest& b) {
  EXPECT_EQ(a.source, b.source);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    const KernelInfo& x = a.kernels[i];
    const KernelInfo& y = b.kernels[i];
    EXPECT_EQ(x.kernel_id, y.kernel_id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.grid, y.grid);
    EXPECT_EQ(x.block, y.block);
    EXPECT_EQ(x.shmem_bytes, y.shmem_bytes);
    EXPECT_EQ(x.nregs, y.nregs);
    EXPECT_EQ(x.binary_version, y.binary_version);
    EXPECT_EQ(x.cuda_stream_id, y.cuda_stream_id);
    EXPECT_EQ(x.shmem_base, y.shmem_base);
    EXPECT_EQ(x.local_base, y.local_base);
    EXPECT_EQ(x.nvbit_version, y.nvbit_version);
    EXPECT_EQ(x.tracer_version, y.tracer_version);
    EXPECT_EQ(x.lineinfo, y.lineinfo);
    EXPECT_EQ(x.header_fields, y.header_fields);
    EXPECT_EQ(x.format_comment, y.format_comment);
    EXPECT_EQ(x.source_file, y.source_file);
    EXPECT_EQ(x.raw_tracer_output, y.raw_tracer_output);
  }
  ASSERT_EQ(a.commands.size(), b.commands.size());
  for (size_t i = 0; i < a.commands.size(); ++i) {
    EXPECT_EQ(a.commands[i].kind, b.commands[i].kind);
    if (a.commands[i].kind == TraceCommand::Kind::kMemcpy)
      EXPECT_EQ(a.commands[i].memcpy, b.commands[i].memcpy);
    else
      EXPECT_EQ(a.commands[i].kernel_index, b.commands[i].kernel_index);
  }
}

// Three kernels: 0 with 10 blocks in chunks of 3, 1 with 5 blocks in chunks of
// 2 (interleaved with kernel 0's), 2 with no blocks and no table added.
struct Fixture {
  TraceManifest manifest = make_manifest(3);
  StaticTable tables[3];
  std::vector<BlockTrace> blocks[3];

  Fixture() {
    std::mt19937_64 rng(11);
    const Ids ids0 = fill_table(tables[0]);
    for (uint32_t b = 0; b < 10; ++b)
      blocks[0].push_back(b % 4 == 0 ? edge_block(ids0, {b % 4, b / 4, 0})
                                     : random_block(ids0, {b % 4, b / 4, 0}, 3, 40 + b, rng));
    // Kernel 1's table orders things differently.
    tables[1].intern_opcode("NOP");
    StaticInstruction nop;
    nop.pc = 0x0;
    tables[1].intern(nop);
    const Ids ids1 = fill_table(tables[1]);
    for (uint32_t b = 0; b < 5; ++b) blocks[1].push_back(random_block(ids1, {b, 0, 0}, 2 + b, 25, rng));
  }

  void write(const fs::path& path, size_t chunk0 = 3, size_t chunk1 = 2,
             uint32_t format_version = container::kFormatVersion) {
    ContainerWriter w(path, {}, format_version);
    w.write_header(manifest);
    size_t n0 = 0, n1 = 0;
    while (n0 < blocks[0].size() || n1 < blocks[1].size()) {
      if (n0 < blocks[0].size()) {
        const size_t n = std::min(chunk0, blocks[0].size() - n0);
        w.add_chunk(encode_chunk(0, uint32_t(n0), std::span(blocks[0]).subspan(n0, n), tables[0]));
        n0 += n;
      }
      if (n1 < blocks[1].size()) {
        const size_t n = std::min(chunk1, blocks[1].size() - n1);
        w.add_chunk(encode_chunk(1, uint32_t(n1), std::span(blocks[1]).subspan(n1, n), tables[1]));
        n1 += n;
      }
    }
    w.add_kernel_table(1, tables[1]);
    w.add_kernel_table(0, tables[0]);
    w.commit();
  }
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// Parses the footer of a container image.
proto::TraceFooter footer_of(const std::string& bytes) {
  const auto* tail = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - container::kTailSize);
  const uint64_t off = container::get_u64(tail);
  const uint32_t size = container::get_u32(tail + 8);
  proto::TraceFooter f;
  EXPECT_TRUE(f.ParseFromString(lz4_decompress_frame(std::string_view(bytes).substr(off, size), 1 << 30, "test")));
  return f;
}
uint64_t footer_offset(const std::string& bytes) {
  return container::get_u64(reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - container::kTailSize));
}
// `data` (a container's bytes before its footer) with footer `f` and the tail after it.
std::string append_footer(std::string data, const proto::TraceFooter& f, uint32_t version = container::kFormatVersion) {
  const uint64_t off = data.size();
  std::string raw;
  f.SerializeToString(&raw);
  const std::string frame = lz4_compress_frame(raw);
  data += frame;
  unsigned char t[container::kTailSize];
  container::FileTail{off, uint32_t(frame.size()), crc32(frame.data(), frame.size()), version}.write(t);
  data.append(reinterpret_cast<const char*>(t), sizeof t);
  return data;
}
// Replaces the footer (with a correct CRC), as a writer with a bad index would.
std::string with_footer(const std::string& bytes, const proto::TraceFooter& f,
                        uint32_t version = container::kFormatVersion) {
  return append_footer(bytes.substr(0, footer_offset(bytes)), f, version);
}
// Kernel k's chunk and block rows as a version 3 file stores them (its KernelBlocks frame).
KernelBlockRows rows_of(const std::string& bytes, uint32_t k) {
  const proto::FrameRef ref = footer_of(bytes).kernels(int(k)).blocks_frame();
  proto::KernelBlocks m;
  EXPECT_TRUE(m.ParseFromString(lz4_decompress_frame(std::string_view(bytes).substr(ref.offset(), ref.size()), 1 << 30, "test")));
  return decode_kernel_block_rows(m, "test");
}
// Kernel k's rows replaced by `rows`, in a KernelBlocks frame written after
// the data, as a writer with a bad index would; the footer's counts follow
// the rows unless `keep_counts`.
std::string with_rows(const std::string& bytes, uint32_t k, const KernelBlockRows& rows, bool keep_counts = false) {
  KernelBlocksBuilder b;
  for (const ChunkInfo& c : rows.chunks) b.add_chunk(c.offset, c.size, c.crc, c.num_blocks, c.warp_insts, c.segment);
  for (const BlockInfo& bl : rows.blocks) b.add_block(bl);
  proto::TraceFooter f = footer_of(bytes);
  proto::KernelIndex* idx = f.mutable_kernels(int(k));
  if (!keep_counts) {
    idx->set_num_chunks(b.chunk_count());
    idx->set_num_blocks(b.block_count());
    idx->set_warps(b.warps());
  }
  proto::KernelBlocks m;
  b.finish(k, m);
  std::string raw;
  m.SerializeToString(&raw);
  const std::string frame = lz4_compress_frame(raw);
  std::string data = bytes.substr(0, footer_offset(bytes));
  idx->mutable_blocks_frame()->set_offset(data.size());
  idx->mutable_blocks_frame()->set_size(uint32_t(frame.size()));
  idx->mutable_blocks_frame()->set_crc32(crc32(frame.data(), frame.size()));
  return append_footer(data + frame, f);
}

TEST(Container, RoundTrip) {
  ScratchDir dir("container");
  Fixture fx;
  const fs::path path = dir / "trace.lst";
  fx.write(path);
  EXPECT_TRUE(fs::is_regular_file(path));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}), 1);  // no temp left

  const ContainerReader r(path);
  EXPECT_EQ(r.format_version(), container::kFormatVersion);
  EXPECT_EQ(r.producer(), kContainerProducer);
  expect_same_manifest(fx.manifest, r.manifest());
  ASSERT_EQ(r.kernel_count(), 3u);
  EXPECT_EQ(r.block_count(0), 10u);
  EXPECT_EQ(r.chunk_count(0), 4u);
  EXPECT_EQ(r.block_count(1), 5u);
  EXPECT_EQ(r.chunk_count(1), 3u);
  EXPECT_EQ(r.block_count(2), 0u);
  EXPECT_EQ(r.chunk_count(2), 0u);
  EXPECT_EQ(r.kernel_table(2).size(), 0u);
  EXPECT_EQ(r.totals(2).warp_insts, 0u);
  EXPECT_TRUE(r.totals(2).opcode_counts.empty());

  for (uint32_t k = 0; k < 2; ++k) {
    SCOPED_TRACE("kernel " + std::to_string(k));
    expect_same_table(fx.tables[k], r.kernel_table(k));
    const StaticTable& table = r.kernel_table(k);
    const auto index = r.block_index(k);
    ASSERT_EQ(index->blocks.size(), fx.blocks[k].size());
    const std::vector<BlockInfo> summaries = index->blocks.unpacked();
    KernelTotals want;
    want.opcode_counts.assign(table.opcode_count(), 0);
    for (size_t b = 0; b < fx.blocks[k].size(); ++b) {
      const BlockTrace& bt = fx.blocks[k][b];
      EXPECT_EQ(summaries[b], (BlockInfo{bt.id, uint32_t(bt.warps.size()), bt.warp_insts()}));
      EXPECT_EQ(index->blocks[uint32_t(b)], summaries[b]);
      want.warps += bt.warps.size();
      for (const WarpTrace& w : bt.warps)
        for (const WarpInstruction& wi : w.insts) {
          ++want.warp_insts;
          want.mem_insts += table.inst(wi.static_id).is_memory();
          want.thread_insts += std::popcount(wi.active_mask);
          ++want.opcode_counts[table.inst(wi.static_id).opcode_id];
        }
    }
    const KernelTotals& got = r.totals(k);
    EXPECT_EQ(got.warp_insts, want.warp_insts);
    EXPECT_EQ(got.mem_insts, want.mem_insts);
    EXPECT_EQ(got.thread_insts, want.thread_insts);
    EXPECT_EQ(got.warps, want.warps);
    EXPECT_EQ(got.opcode_counts, want.opcode_counts);

    // Chunk by chunk.
    uint32_t ordinal = 0;
    std::vector<BlockTrace> chunk;
    for (uint32_t c = 0; c < r.chunk_count(k); ++c) {
      r.read_chunk(k, c, chunk);
      EXPECT_EQ(index->chunks[c].first_block, ordinal);
      for (const BlockTrace& bt : chunk) expect_same_block(fx.blocks[k][ordinal++], bt, table);
    }
    EXPECT_EQ(ordinal, fx.blocks[k].size());

    // Random access, out of order.
    std::vector<uint32_t> order(fx.blocks[k].size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937(5));
    for (uint32_t b : order) expect_same_block(fx.blocks[k][b], r.read_block(k, b), table);

    // Streaming.
    BlockStream stream(r, k);
    BlockTrace got_block;
    size_t n = 0;
    while (stream.next(got_block)) expect_same_block(fx.blocks[k][n++], got_block, table);
    EXPECT_EQ(n, fx.blocks[k].size());
    EXPECT_FALSE(stream.next(got_block));
  }
  EXPECT_CONTAINS(trace_error([&] { r.read_block(0, 10); }), "block 10 out of range");
  std::vector<BlockTrace> scratch;
  EXPECT_CONTAINS(trace_error([&] { r.read_chunk(1, 3, scratch); }), "chunk 3 out of range");
  EXPECT_CONTAINS(trace_error([&] { r.kernel_table(3); }), "kernel 3 out of range");
}

// Packed block summaries read back as pushed, in order from any block and
// one by one, whatever their ids (up or down, to the ends of uint32) and sizes.
TEST(Container, PackedBlocksReadBackAsPushed) {
  std::mt19937_64 rng(9);
  std::vector<BlockInfo> want;
  PackedBlocks packed;
  EXPECT_TRUE(packed.unpacked().empty());
  for (uint32_t i = 0; i < 1000; ++i) {
    BlockInfo b;
    b.id = i % 7 == 0 ? Dim3{uint32_t(rng()), uint32_t(rng()), uint32_t(rng())} : Dim3{i % 50, i / 50, 0};
    if (i == 500) b.id = Dim3{UINT32_MAX, 0, UINT32_MAX};
    b.warps = uint32_t(rng() % 33);
    b.warp_insts = i % 11 == 0 ? rng() : rng() % 5000;
    b.segments = 1 + uint32_t(i % 13 == 0 ? rng() % 100000 : 0);
    want.push_back(b);
    packed.push_back(b);
  }
  ASSERT_EQ(packed.size(), want.size());
  EXPECT_EQ(packed.unpacked(), want);
  for (uint32_t i : {0u, 1u, 15u, 16u, 17u, 500u, 999u}) {
    PackedBlocks::Cursor c = packed.from(i);
    for (uint32_t j = i; j < want.size(); ++j) ASSERT_EQ(c.next(), want[j]) << "from " << i << " at " << j;
  }
  for (int n = 0; n < 200; ++n) {
    const uint32_t i = uint32_t(rng() % want.size());
    EXPECT_EQ(packed[i], want[i]);
  }
}

// A version 3 footer keeps counts and totals only; a version 2 file (the
// index in the footer) reads back the same rows, blocks and totals.
TEST(Container, Version2FilesReadLikeVersion3) {
  ScratchDir dir("container-v2");
  Fixture fx;
  const fs::path v2 = dir / "v2.lst", v3 = dir / "v3.lst";
  fx.write(v2, 3, 2, 2);
  fx.write(v3, 3, 2, 3);
  EXPECT_CONTAINS(trace_error([&] { ContainerWriter w(dir / "v1.lst", {}, 1); }), "cannot write format version 1");
  const proto::TraceFooter f2 = footer_of(read_file(v2)), f3 = footer_of(read_file(v3));
  EXPECT_EQ(f2.kernels(0).blocks_size(), 10);
  EXPECT_EQ(f3.kernels(0).blocks_size(), 0);
  EXPECT_EQ(f3.kernels(0).chunks_size(), 0);
  EXPECT_EQ(f3.kernels(0).num_blocks(), 10u);
  const ContainerReader a(v2), b(v3);
  EXPECT_EQ(a.format_version(), 2u);
  EXPECT_EQ(b.format_version(), 3u);
  for (uint32_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("kernel " + std::to_string(k));
    ASSERT_EQ(a.block_count(k), b.block_count(k));
    ASSERT_EQ(a.chunk_count(k), b.chunk_count(k));
    const auto ia = a.block_index(k), ib = b.block_index(k);
    EXPECT_EQ(ia->blocks.unpacked(), ib->blocks.unpacked());
    EXPECT_EQ(ia->groups, ib->groups);
    ASSERT_EQ(ia->chunks.size(), ib->chunks.size());
    for (size_t c = 0; c < ia->chunks.size(); ++c) {
      // The chunks sit at the same offsets: only what follows them differs.
      EXPECT_EQ(ia->chunks[c].offset, ib->chunks[c].offset);
      EXPECT_EQ(ia->chunks[c].crc, ib->chunks[c].crc);
      EXPECT_EQ(ia->chunks[c].first_block, ib->chunks[c].first_block);
      EXPECT_EQ(ia->chunks[c].segments, ib->chunks[c].segments);
    }
    EXPECT_EQ(a.totals(k).warps, b.totals(k).warps);
    EXPECT_EQ(a.totals(k).warp_insts, b.totals(k).warp_insts);
    for (uint32_t o = 0; o < a.block_count(k); ++o)
      expect_same_block(a.read_block(k, o), b.read_block(k, o), b.kernel_table(k));
  }
}

// Opening a version 3 file reads no kernel's index; a kernel's is read on
// first use, kept while held and among the two loaded last, dropped after.
TEST(Container, BlockIndexReadWhenNeededAndDroppedAfter) {
  ScratchDir dir("container-lazy-index");
  const TraceManifest manifest = make_manifest(4);
  StaticTable table;
  const Ids ids = fill_table(table);
  std::mt19937_64 rng(3);
  std::vector<BlockTrace> blocks;
  for (uint32_t b = 0; b < 6; ++b) blocks.push_back(random_block(ids, {b, 0, 0}, 2, 10, rng));
  const fs::path path = dir / "t.lst";
  {
    ContainerWriter w(path);
    w.write_header(manifest);
    for (uint32_t k = 0; k < 4; ++k) {
      w.add_chunk(encode_chunk(k, 0, std::span(blocks).first(3), table));
      w.add_chunk(encode_chunk(k, 3, std::span(blocks).subspan(3), table));
      w.add_kernel_table(k, table);
    }
    w.commit();
  }
  const ContainerReader r(path);
  EXPECT_EQ(r.block_count(3), 6u);  // from the footer
  std::weak_ptr<const KernelBlockIndex> first = r.block_index(0);
  EXPECT_FALSE(first.expired());  // nobody holds it, but it was loaded last
  {
    BlockStream s(r, 1);
    while (s.next()) {
    }
  }
  EXPECT_FALSE(first.expired());  // one of the two loaded last
  EXPECT_EQ(r.read_block(2, 5).id, blocks[5].id);
  EXPECT_TRUE(first.expired());  // kernels 1 and 2 came after it
  // Held, it stays (and is not read again) whatever comes after.
  const auto held = r.block_index(0);
  for (uint32_t k : {1u, 2u, 3u, 1u}) r.block_index(k);
  EXPECT_EQ(r.block_index(0).get(), held.get());
  // A version 2 file keeps every kernel's index from the moment it is opened.
  Fixture fx;
  fx.write(dir / "v2.lst", 3, 2, 2);
  const ContainerReader old(dir / "v2.lst");
  first = old.block_index(0);
  for (uint32_t k : {1u, 2u, 1u, 2u}) old.block_index(k);
  EXPECT_FALSE(first.expired());
}

TEST(Container, ManifestCodecRoundTrip) {
  const TraceManifest m = make_manifest(4);
  proto::TraceHeader h;
  encode_manifest(m, 1, h);
  expect_same_manifest(m, decode_manifest(h, "h"));
  h.mutable_commands(1)->set_kernel_index(4);
  EXPECT_CONTAINS(trace_error([&] { decode_manifest(h, "h"); }), "names kernel 4");
  h.mutable_commands(1)->clear_kind();
  EXPECT_CONTAINS(trace_error([&] { decode_manifest(h, "h"); }), "neither a memcpy nor a kernel");
}

TEST(Container, WriterChecksCallOrder) {
  ScratchDir dir("container-order");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  {
    ContainerWriter w(path);
    EXPECT_CONTAINS(trace_error([&] { w.add_kernel_table(0, fx.tables[0]); }), "before write_header");
    w.write_header(fx.manifest);
    EXPECT_CONTAINS(trace_error([&] { w.write_header(fx.manifest); }), "twice");
    const std::span<const BlockTrace> all(fx.blocks[0]);
    EXPECT_CONTAINS(trace_error([&] { w.add_chunk(encode_chunk(0, 1, all.subspan(1, 2), fx.tables[0])); }),
                    "expected 0");
    w.add_chunk(encode_chunk(0, 0, all.subspan(0, 2), fx.tables[0]));
    EXPECT_CONTAINS(trace_error([&] { w.add_chunk(encode_chunk(0, 1, all.subspan(1, 2), fx.tables[0])); }),
                    "chunk starts at block 1, expected 2");
    EXPECT_CONTAINS(trace_error([&] { w.add_chunk(encode_chunk(0, 0, all.subspan(0, 2), fx.tables[0])); }),
                    "block order");
    EXPECT_CONTAINS(trace_error([&] { w.add_chunk(encode_chunk(7, 0, all.subspan(0, 1), fx.tables[0])); }),
                    "kernel 7");
    EXPECT_CONTAINS(trace_error([&] { w.add_chunk(encode_chunk(0, 2, all.subspan(0, 0), fx.tables[0])); }),
                    "empty chunk");
    w.add_chunk(encode_chunk(1, 0, std::span(fx.blocks[1]).subspan(0, 1), fx.tables[1]));
    // Kernel 1 has a chunk but no table yet.
    w.add_kernel_table(0, fx.tables[0]);
    EXPECT_CONTAINS(trace_error([&] { w.add_kernel_table(0, fx.tables[0]); }), "table added twice");
    EXPECT_CONTAINS(trace_error([&] { w.commit(); }), "kernel 1: has chunks but no kernel table");
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(Container, WriterWithoutCommitLeavesNothing) {
  ScratchDir dir("container-abandon");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  {
    ContainerWriter w(path);
    EXPECT_TRUE(fs::exists(w.temp_path()));
    EXPECT_NE(w.temp_path(), path);
    w.write_header(fx.manifest);
    w.add_chunk(encode_chunk(0, 0, std::span(fx.blocks[0]).subspan(0, 3), fx.tables[0]));
    w.add_kernel_table(0, fx.tables[0]);
    EXPECT_GT(w.bytes_written(), 16u);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir.path()));

  // An existing file at the final path survives an abandoned writer, and is
  // replaced by a committed one.
  write_file(path, "old contents");
  { ContainerWriter w(path); }
  EXPECT_EQ(read_file(path), "old contents");
  fx.write(path);
  EXPECT_EQ(ContainerReader(path).block_count(0), 10u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}), 1);
}

TEST(Container, WriterTableMayCoverMoreThanChunksUse) {
  ScratchDir dir("container-table");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  ContainerWriter w(path);
  w.write_header(fx.manifest);
  w.add_chunk(encode_chunk(0, 0, std::span(fx.blocks[0]).subspan(0, 1), fx.tables[0]));
  // Interning after the chunk was encoded is fine: ids only grow.
  fx.tables[0].intern_opcode("HMMA.16816.F32");
  StaticInstruction s;
  s.pc = 0x9990;
  s.opcode_id = fx.tables[0].opcode_count() - 1;
  fx.tables[0].intern(s);
  w.add_kernel_table(0, fx.tables[0]);
  w.add_kernel_table(1, fx.tables[1]);
  w.commit();
  const ContainerReader r(path);
  EXPECT_EQ(r.kernel_table(0).size(), fx.tables[0].size());
  EXPECT_EQ(r.totals(0).opcode_counts.size(), fx.tables[0].opcode_count());
  EXPECT_EQ(r.totals(0).opcode_counts.back(), 0u);
  expect_same_block(fx.blocks[0][0], r.read_block(0, 0), r.kernel_table(0));
}

TEST(Container, IdenticalTablesShareOneFrame) {
  ScratchDir dir("container-shared-tables");
  const TraceManifest manifest = make_manifest(4);
  // Kernels 0, 2 and 3 run the same code; kernel 1 another.
  StaticTable tables[4];
  Ids ids[4];
  for (int k = 0; k < 4; ++k) {
    if (k == 1) tables[k].intern_opcode("NOP");
    ids[k] = fill_table(tables[k]);
  }
  std::mt19937_64 rng(21);
  std::vector<BlockTrace> blocks[4];
  for (int k = 0; k < 3; ++k)
    for (uint32_t b = 0; b < 3; ++b) blocks[k].push_back(random_block(ids[k], {b, uint32_t(k), 0}, 2, 20, rng));
  const fs::path path = dir / "t.lst";
  {
    ContainerWriter w(path);
    w.write_header(manifest);
    for (uint32_t k = 0; k < 3; ++k) w.add_chunk(encode_chunk(k, 0, blocks[k], tables[k]));
    for (uint32_t k : {2u, 1u, 0u, 3u}) w.add_kernel_table(k, tables[k]);  // kernel 2's is written first
    w.commit();
  }
  const std::string bytes = read_file(path);
  const proto::TraceFooter f = footer_of(bytes);
  EXPECT_EQ(f.kernels(0).table().offset(), f.kernels(2).table().offset());
  EXPECT_EQ(f.kernels(3).table().offset(), f.kernels(2).table().offset());
  EXPECT_NE(f.kernels(1).table().offset(), f.kernels(0).table().offset());

  const ContainerReader r(path);
  EXPECT_EQ(&r.kernel_table(0), &r.kernel_table(2));
  EXPECT_EQ(&r.kernel_table(3), &r.kernel_table(2));
  EXPECT_NE(&r.kernel_table(1), &r.kernel_table(0));
  for (uint32_t k = 0; k < 4; ++k) {
    expect_same_table(tables[k], r.kernel_table(k));
    for (uint32_t b = 0; b < r.block_count(k); ++b) expect_same_block(blocks[k][b], r.read_block(k, b), r.kernel_table(k));
  }

  // An index that shares a frame offset but not its size or checksum.
  const fs::path bad = dir / "bad.lst";
  proto::TraceFooter g = f;
  g.mutable_kernels(2)->mutable_table()->set_size(f.kernels(2).table().size() - 1);
  write_file(bad, with_footer(bytes, g));
  EXPECT_CONTAINS(trace_error([&] { ContainerReader x(bad); }), "kernel 2 table: frame at offset");
  // A table frame naming a kernel that does not use it.
  g = f;
  *g.mutable_kernels(0)->mutable_table() = f.kernels(1).table();
  *g.mutable_kernels(1)->mutable_table() = f.kernels(0).table();
  *g.mutable_kernels(2)->mutable_table() = f.kernels(1).table();
  *g.mutable_kernels(3)->mutable_table() = f.kernels(1).table();
  write_file(bad, with_footer(bytes, g));
  const ContainerReader x(bad);
  EXPECT_CONTAINS(trace_error([&] { x.kernel_table(1); }), "does not use this table frame");
}

class ContainerCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    fx.write(good);
    bytes = read_file(good);
  }
  std::string open_error(const std::string& image) {
    write_file(bad, image);
    return trace_error([&] { ContainerReader r(bad); });
  }

  ScratchDir dir{"container-corrupt"};
  Fixture fx;
  fs::path good = dir / "good.lst";
  fs::path bad = dir / "bad.lst";
  std::string bytes;
};

TEST_F(ContainerCorruption, BadMagic) {
  std::string b = bytes;
  b[0] = 'X';
  const std::string m = open_error(b);
  EXPECT_CONTAINS(m, bad.string() + ": ");
  EXPECT_CONTAINS(m, "bad magic");
  EXPECT_CONTAINS(open_error("#traces format = something else entirely, a text trace\n"), "bad magic");
}

TEST_F(ContainerCorruption, WrongVersion) {
  std::string b = bytes;
  b[8] = 7;
  const std::string m = open_error(b);
  EXPECT_CONTAINS(m, "unsupported format version 7 (this build reads 1 to 3)");
  b = bytes;
  b[bytes.size() - 12] = 9;  // the tail's copy
  EXPECT_CONTAINS(open_error(b), "tail format version 9");
}

TEST_F(ContainerCorruption, Truncated) {
  for (size_t cut : {size_t(0), size_t(5), size_t(16), size_t(40), size_t(200), bytes.size() / 2,
                     bytes.size() - container::kTailSize - 1, bytes.size() - container::kTailSize,
                     bytes.size() - 10, bytes.size() - 1}) {
    const std::string m = open_error(bytes.substr(0, cut));
    EXPECT_CONTAINS(m, bad.string() + ": ") << "cut at " << cut;
    EXPECT_TRUE(m.find("truncated") != std::string::npos) << "cut at " << cut << ": " << m;
  }
  // Appended garbage moves the tail: also caught.
  EXPECT_CONTAINS(open_error(bytes + "xyz"), "tail magic");
}

TEST_F(ContainerCorruption, FlippedByteInChunk) {
  const ChunkInfo ref = ContainerReader(good).block_index(0)->chunks[1];
  std::string b = bytes;
  b[ref.offset + ref.size / 2] ^= 0x10;
  write_file(bad, b);
  const ContainerReader r(bad);  // the index is intact: opening succeeds
  std::vector<BlockTrace> out;
  r.read_chunk(0, 0, out);  // other chunks still read
  const std::string m = trace_error([&] { r.read_chunk(0, 1, out); });
  EXPECT_CONTAINS(m, bad.string() + ": kernel 0 chunk 1: checksum mismatch");
  EXPECT_CONTAINS(trace_error([&] { r.read_block(0, 4); }), "kernel 0 chunk 1: checksum mismatch");
}

TEST_F(ContainerCorruption, FlippedByteInFooter) {
  std::string b = bytes;
  b[bytes.size() - container::kTailSize - 5] ^= 0x01;
  EXPECT_CONTAINS(open_error(b), "footer: checksum mismatch");
}

TEST_F(ContainerCorruption, FlippedByteInTable) {
  const proto::TraceFooter f = footer_of(bytes);
  const proto::FrameRef& ref = f.kernels(1).table();
  std::string b = bytes;
  b[ref.offset() + 3] ^= 0x01;
  write_file(bad, b);
  const ContainerReader r(bad);
  EXPECT_CONTAINS(trace_error([&] { r.kernel_table(1); }), "kernel 1 table: checksum mismatch");
  EXPECT_CONTAINS(trace_error([&] { r.totals(1); }), "kernel 1 table: checksum mismatch");
  EXPECT_EQ(r.kernel_table(0).size(), fx.tables[0].size());
}

// A chunk that says it holds a later segment must follow its blocks' first
// chunk and the segments before it; the first chunk of a kernel can be none.
TEST_F(ContainerCorruption, SegmentChunksOutOfPlace) {
  KernelBlockRows rows = rows_of(bytes, 1);
  rows.chunks[0].segment = 1;
  write_file(bad, with_rows(bytes, 1, rows));
  const ContainerReader r(bad);  // the footer is intact: opening succeeds
  EXPECT_CONTAINS(trace_error([&] { r.block_index(1); }),
                  "kernel 1 chunk 0: segment 1 of blocks from 0 does not follow");
  rows = rows_of(bytes, 1);
  rows.chunks[2].segment = 1;  // its blocks are whole: they have no segment 1
  write_file(bad, with_rows(bytes, 1, rows));
  const ContainerReader r2(bad);
  EXPECT_CONTAINS(trace_error([&] { r2.read_block(1, 0); }), "kernel 1 chunk 2: segment 1 of blocks from");
  EXPECT_EQ(r2.read_block(0, 9).id, fx.blocks[0][9].id);  // other kernels still read
}

TEST_F(ContainerCorruption, IndexPointsPastTheEnd) {
  KernelBlockRows rows = rows_of(bytes, 1);
  rows.chunks[2].offset = bytes.size() + 100;
  write_file(bad, with_rows(bytes, 1, rows));
  const ContainerReader r(bad);
  std::string m = trace_error([&] { BlockStream s(r, 1); });
  EXPECT_CONTAINS(m, "kernel 1 chunk 2: frame at offset");
  EXPECT_CONTAINS(m, "outside the data region");

  proto::TraceFooter f = footer_of(bytes);
  f.mutable_kernels(0)->mutable_table()->set_offset(footer_offset(bytes) - 2);  // overlaps the footer
  EXPECT_CONTAINS(open_error(with_footer(bytes, f)), "kernel 0 table: frame at offset");

  f = footer_of(bytes);
  f.mutable_kernels(1)->mutable_blocks_frame()->set_offset(footer_offset(bytes) - 2);
  EXPECT_CONTAINS(open_error(with_footer(bytes, f)), "kernel 1 block index: frame at offset");

  f = footer_of(bytes);
  f.mutable_header()->set_offset(uint64_t(1) << 63);
  f.mutable_header()->set_size(0xffffffff);
  EXPECT_CONTAINS(open_error(with_footer(bytes, f)), "header: frame at offset");

  // The tail itself pointing elsewhere.
  std::string b = bytes;
  container::put_u64(reinterpret_cast<unsigned char*>(b.data() + b.size() - container::kTailSize), b.size() * 2);
  EXPECT_CONTAINS(open_error(b), "does not end at the tail");
}

TEST_F(ContainerCorruption, InconsistentIndex) {
  // Each fault is found when the kernel's index is read: the first use of its blocks.
  auto index_error = [&](const std::string& image, uint32_t k) {
    write_file(bad, image);
    const ContainerReader r(bad);
    return trace_error([&] { r.block_index(k); });
  };
  KernelBlockRows rows = rows_of(bytes, 0);
  rows.chunks[0].num_blocks = 4;  // blocks 0-3, which hold more than the chunk
  EXPECT_CONTAINS(index_error(with_rows(bytes, 0, rows), 0), "kernel 0 chunk 0: index says");

  rows = rows_of(bytes, 0);
  rows.blocks.pop_back();
  EXPECT_CONTAINS(index_error(with_rows(bytes, 0, rows), 0), "kernel 0 chunk 3: chunk blocks run past");

  rows = rows_of(bytes, 1);
  rows.blocks.push_back(BlockInfo{{9, 9, 0}, 1, 0});
  EXPECT_CONTAINS(index_error(with_rows(bytes, 1, rows), 1), "kernel 1: chunks hold 5 blocks but the index lists 6");

  // The frame and the footer disagree.
  rows = rows_of(bytes, 1);
  rows.blocks.push_back(BlockInfo{{9, 9, 0}, 1, 0});
  EXPECT_CONTAINS(index_error(with_rows(bytes, 1, rows, /*keep_counts=*/true), 1),
                  "kernel 1 block index: lists 3 chunks and 6 blocks, the footer 3 and 5");
  proto::TraceFooter f = footer_of(bytes);
  f.mutable_kernels(1)->set_warps(f.kernels(1).warps() + 1);
  EXPECT_CONTAINS(index_error(with_footer(bytes, f), 1), "kernel 1 block index: its blocks have");
  f = footer_of(bytes);
  f.mutable_kernels(1)->set_warp_insts(f.kernels(1).warp_insts() + 1);
  EXPECT_CONTAINS(index_error(with_footer(bytes, f), 1), "kernel 1: index total");
  f = footer_of(bytes);
  f.mutable_kernels(0)->set_num_chunks(1000000);
  EXPECT_CONTAINS(index_error(with_footer(bytes, f), 0), "kernel 0 block index: lists 4 chunks and 10 blocks");

  // The index frame itself: a flipped byte, content that is not a KernelBlocks, a short column.
  std::string b = bytes;
  const proto::FrameRef ref = footer_of(bytes).kernels(0).blocks_frame();
  b[ref.offset() + ref.size() / 2] ^= 0x08;
  EXPECT_CONTAINS(index_error(b, 0), "kernel 0 block index: checksum mismatch");
  f = footer_of(bytes);
  const std::string junk = lz4_compress_frame("\xff\xff\xff\xff\xff\xff");
  f.mutable_kernels(0)->mutable_blocks_frame()->set_offset(footer_offset(bytes));
  f.mutable_kernels(0)->mutable_blocks_frame()->set_size(uint32_t(junk.size()));
  f.mutable_kernels(0)->mutable_blocks_frame()->set_crc32(crc32(junk.data(), junk.size()));
  EXPECT_CONTAINS(index_error(append_footer(bytes.substr(0, footer_offset(bytes)) + junk, f), 0),
                  "kernel 0 block index: bad protobuf");
  {
    proto::KernelBlocks m;
    const proto::FrameRef r0 = footer_of(bytes).kernels(0).blocks_frame();
    ASSERT_TRUE(m.ParseFromString(lz4_decompress_frame(std::string_view(bytes).substr(r0.offset(), r0.size()), 1 << 30, "t")));
    m.mutable_block_insts()->pop_back();
    m.mutable_block_insts()->push_back(char(0x80));  // a varint that does not end
    std::string raw;
    m.SerializeToString(&raw);
    const std::string frame = lz4_compress_frame(raw);
    f = footer_of(bytes);
    f.mutable_kernels(0)->mutable_blocks_frame()->set_offset(footer_offset(bytes));
    f.mutable_kernels(0)->mutable_blocks_frame()->set_size(uint32_t(frame.size()));
    f.mutable_kernels(0)->mutable_blocks_frame()->set_crc32(crc32(frame.data(), frame.size()));
    EXPECT_CONTAINS(index_error(append_footer(bytes.substr(0, footer_offset(bytes)) + frame, f), 0),
                    "kernel 0 block index: block_insts stream ends early");
  }

  f = footer_of(bytes);
  f.mutable_kernels(1)->set_warp_insts(0);  // below the memory instructions
  EXPECT_CONTAINS(open_error(with_footer(bytes, f)), "kernel 1: inconsistent instruction totals");
  f = footer_of(bytes);
  f.mutable_kernels()->RemoveLast();
  EXPECT_CONTAINS(open_error(with_footer(bytes, f)), "footer indexes 2 kernels but the header lists 3");
  f = footer_of(bytes);
  f.mutable_kernels(1)->add_blocks()->set_warps(1);
  EXPECT_CONTAINS(open_error(with_footer(bytes, f)), "kernel 1: chunk or block entries in the footer of a version 3");

  // Block summaries that disagree with the chunk's contents surface on read.
  rows = rows_of(bytes, 0);
  rows.blocks[4].id.z = 99;
  write_file(bad, with_rows(bytes, 0, rows));
  const ContainerReader r(bad);
  EXPECT_CONTAINS(trace_error([&] { r.read_block(0, 4); }), "kernel 0 chunk 1: block 4");

  // Opcode counts that do not fit the table.
  f = footer_of(bytes);
  f.mutable_kernels(1)->add_opcode_counts(0);
  write_file(bad, with_footer(bytes, f));
  const ContainerReader r2(bad);
  EXPECT_CONTAINS(trace_error([&] { r2.totals(1); }), "kernel 1 table: ");
}

// Version 2 keeps every kernel's chunks and blocks in the footer: such files
// read as before, their index checked when opened.
TEST_F(ContainerCorruption, Version2IndexInTheFooter) {
  const fs::path v2 = dir / "v2.lst";
  fx.write(v2, 3, 2, 2);
  const std::string v2_bytes = read_file(v2);
  proto::TraceFooter f = footer_of(v2_bytes);
  ASSERT_EQ(f.kernels(0).chunks_size(), 4);
  f.mutable_kernels(0)->mutable_chunks(1)->set_first_block(4);
  EXPECT_CONTAINS(open_error(with_footer(v2_bytes, f, 2)),
                  "kernel 0 chunk 1: index says it starts at block 4, expected 3");
  f = footer_of(v2_bytes);
  f.mutable_kernels(0)->mutable_blocks()->RemoveLast();
  EXPECT_CONTAINS(open_error(with_footer(v2_bytes, f, 2)), "kernel 0 chunk 3: chunk blocks run past");
  f = footer_of(v2_bytes);
  f.mutable_kernels(1)->mutable_chunks(2)->mutable_frame()->set_offset(v2_bytes.size() + 100);
  EXPECT_CONTAINS(open_error(with_footer(v2_bytes, f, 2)), "kernel 1 chunk 2: frame at offset");
  f = footer_of(v2_bytes);
  f.mutable_kernels(1)->set_num_blocks(5);
  EXPECT_CONTAINS(open_error(with_footer(v2_bytes, f, 2)), "kernel 1: version 3 index fields in a version 2 file");
}

TEST_F(ContainerCorruption, BadProtobufInChunk) {
  // A frame whose LZ4 and CRC are fine but whose content is not a BlockChunk.
  const fs::path p = dir / "garbage.lst";
  {
    ContainerWriter w(p);
    w.write_header(fx.manifest);
    EncodedChunk c;
    c.kernel_index = 0;
    c.blocks = {BlockInfo{{0, 0, 0}, 1, 0}};
    c.frame = lz4_compress_frame("\xff\xff\xff\xff\xff\xff");
    w.add_chunk(std::move(c));
    w.add_kernel_table(0, fx.tables[0]);
    w.add_kernel_table(1, fx.tables[1]);
    w.commit();
  }
  const ContainerReader r(p);
  std::vector<BlockTrace> out;
  EXPECT_CONTAINS(trace_error([&] { r.read_chunk(0, 0, out); }), p.string() + ": kernel 0 chunk 0: bad protobuf");
}

// ---------------------------------------------------------------------------
// BlockStream

TEST(BlockStream, StreamsEveryBlockWithAnyLookahead) {
  ScratchDir dir("stream");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  fx.write(path, 1, 1);
  const ContainerReader r(path);
  for (BlockStream::Ahead start : {BlockStream::Ahead::kWhenWorthIt, BlockStream::Ahead::kAtOnce})
    for (size_t ahead : {size_t(0), size_t(1), size_t(2), size_t(16)}) {
      BlockStream s(r, 0, ahead, start);
      if (start == BlockStream::Ahead::kAtOnce)  // the helper decodes before the first block is asked for
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      size_t n = 0;
      while (const BlockTrace* b = s.next()) expect_same_block(fx.blocks[0][n++], *b, r.kernel_table(0));
      EXPECT_EQ(n, 10u);
      EXPECT_EQ(s.blocks_returned(), 10u);
      EXPECT_EQ(s.next(), nullptr);
    }
  BlockStream empty(r, 2);
  EXPECT_EQ(empty.next(), nullptr);
  BlockStream empty_at_once(r, 2, 4, BlockStream::Ahead::kAtOnce);
  EXPECT_EQ(empty_at_once.next(), nullptr);
  EXPECT_CONTAINS(trace_error([&] { BlockStream s(r, 9); }), "kernel 9 out of range");
}

TEST(BlockStream, StopsCleanlyWhenAbandoned) {
  ScratchDir dir("stream-abandon");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  fx.write(path, 1, 1);
  const ContainerReader r(path);
  { BlockStream s(r, 0, 1); }  // never read
  { BlockStream s(r, 0, 1, BlockStream::Ahead::kAtOnce); }  // never read, its helper already decoding
  {
    BlockStream s(r, 0, 2);
    ASSERT_NE(s.next(), nullptr);
  }
  {
    BlockStream s(r, 1, 1);
    BlockTrace b;
    ASSERT_TRUE(s.next(b));
    ASSERT_TRUE(s.next(b));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // helper blocked on a full queue
  }
  for (int i = 0; i < 20; ++i) {
    BlockStream s(r, i % 2, size_t(i % 3));
    for (int j = 0; j < i % 4; ++j) s.next();
  }
}

TEST(BlockStream, CarriesHelperErrorsToTheConsumer) {
  ScratchDir dir("stream-error");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  fx.write(path, 2, 2);
  std::string b = read_file(path);
  const proto::TraceFooter f = footer_of(b);
  const ChunkInfo ref = ContainerReader(path).block_index(0)->chunks[2];
  b[ref.offset + ref.size - 3] ^= 0x55;
  write_file(path, b);
  const ContainerReader r(path);
  BlockStream s(r, 0, 8);
  size_t n = 0;
  const std::string m = trace_error([&] {
    while (const BlockTrace* bt = s.next()) expect_same_block(fx.blocks[0][n++], *bt, r.kernel_table(0));
  });
  EXPECT_EQ(n, 4u);  // chunks 0 and 1 came through first
  EXPECT_CONTAINS(m, "kernel 0 chunk 2: checksum mismatch");
  EXPECT_EQ(s.next(), nullptr);  // the stream stays ended
}

TEST(BlockStream, ErrorsArriveInOrderFromEitherThread) {
  ScratchDir dir("stream-errors");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  fx.write(path, 1, 1);  // kernel 0: ten chunks of one block
  const std::string good = read_file(path);
  const auto index = ContainerReader(path).block_index(0);
  for (int bad_chunk : {0, 3, 9}) {
    std::string b = good;
    const ChunkInfo& ref = index->chunks[size_t(bad_chunk)];
    b[ref.offset + ref.size / 2] ^= 0x21;
    write_file(path, b);
    const ContainerReader r(path);
    for (size_t ahead : {size_t(1), size_t(2), size_t(8)})
      for (bool slow : {false, true}) {
        SCOPED_TRACE("chunk " + std::to_string(bad_chunk) + " ahead " + std::to_string(ahead) + (slow ? " slow" : ""));
        BlockStream s(r, 0, ahead);
        int n = 0;
        const std::string m = trace_error([&] {
          while (const BlockTrace* bt = s.next()) {
            expect_same_block(fx.blocks[0][size_t(n++)], *bt, r.kernel_table(0));
            if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the helper runs ahead
          }
        });
        EXPECT_EQ(n, bad_chunk);
        EXPECT_CONTAINS(m, "kernel 0 chunk " + std::to_string(bad_chunk) + ": checksum mismatch");
        EXPECT_EQ(s.next(), nullptr);
      }
  }
}

TEST(BlockStream, StreamsReuseTheReadersStorage) {
  ScratchDir dir("stream-reuse");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  fx.write(path, 2, 1);
  const ContainerReader r(path);
  for (int rep = 0; rep < 6; ++rep) {
    const uint32_t k = uint32_t(rep % 2);
    BlockStream s(r, k, size_t(1 + rep % 3));
    BlockTrace b;
    size_t n = 0;
    while (s.next(b)) {
      expect_same_block(fx.blocks[k][n++], b, r.kernel_table(k));
      if (rep >= 4) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(n, fx.blocks[k].size());
    if (rep == 3) {
      BlockStream partial(r, 0, 2);  // ends early: its storage goes back too
      ASSERT_NE(partial.next(), nullptr);
    }
  }
}

// Opened ahead for a launch: the first wave is decoded at once, then nothing
// more until the blocks left to hand out run low (first_blocks / 8), one
// chunk at a time; the blocks all come through in order.
TEST(BlockStream, DecodesTheFirstWaveThenOneChunkWhenRunningLow) {
  ScratchDir dir("stream-wave");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  fx.write(path, 1, 1);  // kernel 0: ten chunks of one block
  const ContainerReader r(path);
  auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
  BlockStream s(r, 0, 1, BlockStream::Ahead::kAtOnce, 3);  // a wave of 3 blocks: refills at 1 left
  settle();
  EXPECT_EQ(s.chunks_claimed(), 3u);  // the wave, nothing beyond it
  size_t n = 0;
  while (const BlockTrace* b = s.next()) {
    expect_same_block(fx.blocks[0][n++], *b, r.kernel_table(0));
    settle();
    // Never more than the chunk being consumed, the wave's rest and one more.
    EXPECT_LE(s.chunks_claimed(), std::max<size_t>(n + 1, 3)) << "after block " << n;
  }
  EXPECT_EQ(n, 10u);
}

TEST(BlockStream, SeveralStreamsShareOneReader) {
  ScratchDir dir("stream-shared");
  Fixture fx;
  const fs::path path = dir / "t.lst";
  fx.write(path, 1, 1);
  const ContainerReader r(path);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const uint32_t k = uint32_t(t % 2);
      for (int rep = 0; rep < 3; ++rep) {
        BlockStream s(r, k, 2);
        BlockTrace b;
        size_t n = 0;
        while (s.next(b)) {
          const BlockTrace& want = fx.blocks[k][n++];
          if (b.id != want.id || b.warp_insts() != want.warp_insts()) ++failures;
        }
        if (n != fx.blocks[k].size()) ++failures;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace lockstep
