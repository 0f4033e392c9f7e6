// Blocks stored in segments (proto/trace.proto, format version 2): the
// segment size is a storage detail. Whole blocks read back from a segmented
// container equal the text trace's; every model's statistics equal those of
// the text trace for any segment size (segments shorter than the SM's fetch
// look-ahead included) and any thread count; a segment that cannot be read stops the run (cycle
// and memory models) with the reader's error; and the writer refuses
// segments out of order.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "configs/spec/gpu_config.h"
#include "frontend/container/chunk_codec.h"
#include "frontend/container/container_reader.h"
#include "frontend/container/container_writer.h"
#include "frontend/container/segment_feed.h"
#include "frontend/convert/converter.h"
#include "frontend/convert/open_trace.h"
#include "frontend/convert/repacker.h"
#include "frontend/gen/workload_generator.h"
#include "frontend/text/text_trace_source.h"
#include "frontend/trace/trace_error.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"
#include "tests/e2e/trace_compare.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

ConvertOptions segmented(uint32_t segment_insts) {
  ConvertOptions o;
  o.jobs = 1;  // (one thread: the thread sanitizer build runs these tests)
  o.warn = nullptr;
  o.segment_insts = segment_insts;
  return o;
}

std::string stats_of(const std::filesystem::path& trace, const std::string& gpu, const std::string& model,
                     uint32_t threads) {
  auto src = open_trace(trace, nullptr);
  const GpuSpec spec = load_gpu_spec(gpu, {});
  RunOptions o;
  o.model = model;
  o.engine.threads = threads;
  o.engine.schedule = threads > 1 ? Schedule::kPara1 : Schedule::kSeq;
  const std::string j = stats_json(simulate(*src, spec, o));
  return j.substr(0, j.find("\"run\""));  // the run section holds wall-clock figures
}

// The longest warp of a trace, to know that segments of a size split it.
size_t longest_warp(TraceSource& src) {
  size_t longest = 0;
  for (uint32_t k = 0; k < src.manifest().kernels.size(); ++k) {
    auto cursor = src.open_blocks(k);
    BlockTrace b;
    while (cursor->next(b))
      for (const WarpTrace& w : b.warps) longest = std::max(longest, w.insts.size());
  }
  return longest;
}

TEST(Segments, WholeBlocksReadBackEqualTheTextTrace) {
  for (const test::RealTrace& c : test::kRealTraces) {
    SCOPED_TRACE(c.trace);
    test::ScratchDir dir("seg-rt");
    const auto input = test::shared_traces() / c.trace;
    convert_text_trace(input, dir / "t.lst", segmented(7));
    ContainerReader reader(dir / "t.lst");
    bool split = false;
    for (uint32_t k = 0; k < reader.kernel_count(); ++k) {
      const auto index = reader.block_index(k);
      for (const BlockInfo& b : index->blocks.unpacked()) split = split || b.segments > 1;
    }
    EXPECT_TRUE(split) << "no block was stored in segments";
    EXPECT_GT(reader.check_every_frame(), 0u);
    TextTraceSource original(input, nullptr);
    auto container = open_trace(dir / "t.lst");
    EXPECT_EQ(test::compare_traces(original, *container), "");
  }
}

// A container of format version 2 (every kernel's index in the footer),
// written again in the current format, with or without segments: the same
// blocks as the text trace, and the same statistics.
TEST(Segments, AnOlderContainerWrittenAgainHoldsTheSameTrace) {
  test::ScratchDir dir("seg-repack");
  const auto text = test::shared_traces() / "bfs-rodinia-sm80";
  ConvertOptions old = segmented(7);
  old.format_version = 2;
  convert_text_trace(text, dir / "v2.lst", old);
  ASSERT_EQ(ContainerReader(dir / "v2.lst").format_version(), 2u);
  const std::string want = stats_of(text, "A100", "cycle", 1);
  for (uint32_t s : {0u, 7u, 64u}) {
    SCOPED_TRACE("segments of " + std::to_string(s));
    const auto lst = dir / ("v3-" + std::to_string(s) + ".lst");
    const ConvertReport r = repack_container(dir / "v2.lst", lst, segmented(s));
    const ContainerReader reader(lst);
    EXPECT_EQ(reader.format_version(), container::kFormatVersion);
    EXPECT_EQ(r.kernels, reader.kernel_count());
    EXPECT_GT(r.blocks, 0u);
    bool split = false;
    for (uint32_t k = 0; k < reader.kernel_count(); ++k) {
      const auto index = reader.block_index(k);
      for (const BlockInfo& b : index->blocks.unpacked()) split = split || b.segments > 1;
    }
    EXPECT_EQ(split, s != 0);
    TextTraceSource original(text, nullptr);
    auto container = open_trace(lst);
    EXPECT_EQ(test::compare_traces(original, *container), "");
    if (s == 0) {
      EXPECT_EQ(stats_of(lst, "A100", "cycle", 1), want);
    }
  }
  try {
    repack_container(dir / "missing.lst", dir / "x.lst", segmented(0));
    ADD_FAILURE() << "a missing input was read";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.lst: cannot open"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.lst"));
}

TEST(Segments, EveryModelGivesTheTextTracesStatisticsForAnySegmentSize) {
  test::ScratchDir dir("seg-stats");
  GenOptions g;
  g.workload = "graph";
  g.size = test::workload_size(120'000);
  g.seed = 2;
  generate_trace(g, dir / "graph");
  struct Case {
    std::filesystem::path text;
    std::string gpu;
  };
  std::vector<Case> cases = {{dir / "graph", "QV100"},
                             {test::shared_traces() / "bfs-rodinia-sm80", "A100"},
                             {test::shared_traces() / "lud-kernel8-sm70", "QV100"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.string());
    {
      TextTraceSource text(c.text, nullptr);
      ASSERT_GT(longest_warp(text), 64u) << "the trace has no warp long enough to split";
    }
    const std::string cycle = stats_of(c.text, c.gpu, "cycle", 1);
    EXPECT_NE(cycle.find("smsp__inst_executed.sum"), std::string::npos);
    const std::string memory = stats_of(c.text, c.gpu, "memory", 1);
    const std::string abstract = stats_of(c.text, c.gpu, "abstract", 1);
    // 1 and 3: shorter than the fetch look-ahead (windows refilled several segments at a time).
    for (uint32_t s : {1u, 3u, 16u, 64u}) {
      SCOPED_TRACE("segments of " + std::to_string(s));
      const auto lst = dir / (std::to_string(s) + "-insts.lst");
      convert_text_trace(c.text, lst, segmented(s));
      EXPECT_EQ(stats_of(lst, c.gpu, "cycle", 1), cycle);
      EXPECT_EQ(stats_of(lst, c.gpu, "cycle", 2), cycle);
      EXPECT_EQ(stats_of(lst, c.gpu, "memory", s == 3 ? 2 : 1), memory);
      if (s == 3) {
        EXPECT_EQ(stats_of(lst, c.gpu, "abstract", 2), abstract);
      }
    }
  }
}

// The SMs of a 2-thread run take segments on both threads (also run by the
// thread sanitizer build).
TEST(Segments, TheCycleModelOnTwoThreadsTakesSegmentsAsItsWarpsNeedThem) {
  test::ScratchDir dir("seg-2t");
  const auto text = test::shared_traces() / "lud-kernel8-sm70";
  convert_text_trace(text, dir / "t.lst", segmented(3));
  EXPECT_EQ(stats_of(dir / "t.lst", "QV100", "cycle", 2), stats_of(text, "QV100", "cycle", 1));
}

TEST(Segments, TheFeedKeepsOnlySegmentsOfBlocksHandedOut) {
  test::ScratchDir dir("seg-feed");
  convert_text_trace(test::shared_traces() / "vectoradd-sm80", dir / "t.lst", segmented(2));
  ContainerReader reader(dir / "t.lst");
  uint32_t k = 0;
  while (k < reader.kernel_count() && reader.block_count(k) < 2) ++k;
  ASSERT_LT(k, reader.kernel_count());
  ASSERT_GT(reader.block_index(k)->blocks[0].segments, 3u);
  ASSERT_GT(reader.block_index(k)->blocks[1].segments, 3u);
  ASSERT_EQ(reader.chunk_of_block(k, 0), reader.chunk_of_block(k, 1)) << "blocks 0 and 1 in one group";
  SegmentFeed feed(reader, k);
  BlockTrace s;
  feed.take(0, 1, s);  // block 1 not handed out: its segment is not kept
  EXPECT_EQ(feed.waiting(), 0u);
  EXPECT_EQ(s.ordinal, 0u);
  EXPECT_EQ(s.segment, 1u);
  EXPECT_GT(s.warp_insts(), 0u);
  feed.handed_out(2);
  feed.take(0, 2, s);
  EXPECT_EQ(feed.waiting(), 0u);  // block 1 takes segment 1 next, not 2
  feed.take(1, 1, s);
  EXPECT_EQ(s.ordinal, 1u);
  EXPECT_EQ(s.segment, 1u);
  EXPECT_EQ(feed.waiting(), 0u);
  feed.take(1, 2, s);
  EXPECT_EQ(feed.waiting(), 0u);
  feed.take(0, 3, s);
  EXPECT_EQ(feed.waiting(), 1u);  // block 1's segment 3, the one it takes next, waits for it
  feed.take(1, 3, s);
  EXPECT_EQ(feed.waiting(), 0u);
  EXPECT_EQ(s.ordinal, 1u);
  EXPECT_EQ(s.segment, 3u);
  EXPECT_FALSE(feed.failed());
}

// A segment read up to one block of its group decodes that prefix only,
// each block exactly as the whole chunk's decoding gives it.
TEST(Segments, ASegmentReadUpToABlockIsThatPrefixOfTheWholeChunk) {
  test::ScratchDir dir("seg-prefix");
  convert_text_trace(test::shared_traces() / "vectoradd-sm80", dir / "t.lst", segmented(2));
  ContainerReader reader(dir / "t.lst");
  uint32_t k = 0;
  while (k < reader.kernel_count() && reader.block_count(k) < 3) ++k;
  ASSERT_LT(k, reader.kernel_count());
  ASSERT_EQ(reader.chunk_of_block(k, 0), reader.chunk_of_block(k, 2)) << "blocks 0 to 2 in one group";
  ChunkScratch scratch;
  std::vector<BlockTrace> whole, prefix;
  reader.read_segment(k, 0, 1, whole, scratch);
  ASSERT_GT(whole.size(), 2u);
  for (uint32_t through : {0u, 1u}) {
    SCOPED_TRACE(through);
    EXPECT_EQ(reader.read_segment(k, 0, 1, prefix, scratch, through), 0u);
    ASSERT_EQ(prefix.size(), size_t(through) + 1);
    for (size_t b = 0; b < prefix.size(); ++b) {
      ASSERT_EQ(prefix[b].warps.size(), whole[b].warps.size());
      EXPECT_EQ(prefix[b].ordinal, whole[b].ordinal);
      EXPECT_EQ(prefix[b].segment, 1u);
      for (size_t w = 0; w < prefix[b].warps.size(); ++w) {
        const WarpTrace &p = prefix[b].warps[w], &q = whole[b].warps[w];
        ASSERT_EQ(p.insts.size(), q.insts.size());
        LaneBuffer pa, qa;
        for (size_t i = 0; i < p.insts.size(); ++i) {
          EXPECT_EQ(p.insts[i].static_id, q.insts[i].static_id);
          EXPECT_EQ(p.insts[i].active_mask, q.insts[i].active_mask);
          const std::span<const uint64_t> x = p.lane_addresses(p.insts[i], reader.kernel_table(k), pa);
          const std::span<const uint64_t> y = q.lane_addresses(q.insts[i], reader.kernel_table(k), qa);
          EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "block " << b << " warp " << w << " inst " << i;
        }
      }
    }
  }
}

TEST(Segments, ASegmentThatCannotBeReadStopsTheRunWithTheReadersError) {
  test::ScratchDir dir("seg-bad");
  convert_text_trace(test::shared_traces() / "lud-kernel8-sm70", dir / "t.lst", segmented(4));
  uint64_t offset = 0;
  {
    ContainerReader reader(dir / "t.lst");
    for (uint32_t k = 0; k < reader.kernel_count() && offset == 0; ++k) {
      const auto index = reader.block_index(k);
      for (const ChunkInfo& c : index->chunks)
        if (c.segment == 2) {
          offset = c.offset + c.size / 2;
          break;
        }
    }
  }
  ASSERT_GT(offset, 0u);
  {
    std::fstream f(dir / "t.lst", std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(offset));
    const char byte = char(f.get() ^ 0x5a);
    f.seekp(std::streamoff(offset));
    f.put(byte);
  }
  // Opening checks the index only; the damaged segment is read mid-run, by an SM.
  for (uint32_t threads : {1u, 2u}) {
    try {
      stats_of(dir / "t.lst", "QV100", threads == 1 ? "memory" : "cycle", 1);
      ADD_FAILURE() << "the memory model went on past a damaged segment";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find("crc"), std::string::npos) << e.what();
    }
    try {
      stats_of(dir / "t.lst", "QV100", "cycle", threads);
      ADD_FAILURE() << "the run went on past a damaged segment";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find("crc"), std::string::npos) << e.what();
    }
  }
}

TEST(Segments, TheWriterRefusesSegmentsOutOfOrder) {
  test::ScratchDir dir("seg-order");
  TextTraceSource text(test::shared_traces() / "lud-kernel8-sm70", nullptr);
  uint32_t k = 0;
  std::vector<BlockTrace> blocks;
  for (; k < text.manifest().kernels.size() && blocks.empty(); ++k) {
    auto cursor = text.open_blocks(k);
    BlockTrace b;
    if (cursor->next(b)) blocks.push_back(b);
  }
  --k;
  const StaticTable& table = text.static_table(k);
  std::vector<EncodedChunk> chunks = encode_block_group(k, 0, blocks, table, 4);
  ASSERT_GT(chunks.size(), 2u);
  {
    ContainerWriter w(dir / "a.lst");
    w.write_header(text.manifest());
    w.add_chunk(EncodedChunk(chunks[0]));
    EXPECT_THROW(w.add_chunk(EncodedChunk(chunks[2])), TraceError);  // segment 1 skipped
  }
  {
    ContainerWriter w(dir / "b.lst");
    w.write_header(text.manifest());
    w.add_chunk(EncodedChunk(chunks[0]));
    w.add_kernel_table(k, table);
    EXPECT_THROW(w.commit(), TraceError);  // the block's later segments missing
  }
  {
    ContainerWriter w(dir / "c.lst");
    w.write_header(text.manifest());
    for (EncodedChunk& c : chunks) w.add_chunk(std::move(c));
    w.add_kernel_table(k, table);
    w.commit();
    ContainerReader r(dir / "c.lst");
    const BlockTrace whole = r.read_block(k, 0);
    EXPECT_EQ(whole.warp_insts(), blocks[0].warp_insts());
    for (size_t i = 0; i < whole.warps.size(); ++i) EXPECT_EQ(whole.warps[i].insts.size(), blocks[0].warps[i].insts.size());
  }
}

}  // namespace
}  // namespace lockstep
