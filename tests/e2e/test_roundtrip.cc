// Text -> .lst -> text round trips on every real sample trace: every
// instruction, mask and address survives, the container's index agrees with a
// full scan, and conversion output does not depend on the number of jobs.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>

#include "frontend/container/container_reader.h"
#include "frontend/convert/converter.h"
#include "frontend/convert/exporter.h"
#include "frontend/convert/open_trace.h"
#include "frontend/text/text_trace_source.h"
#include "tests/e2e/trace_compare.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

const char* kSampleTraces[] = {"vectoradd-sm80", "bfs-rodinia-sm80", "matrixmul-sm61", "flashinfer-gemm-sm80/traces",
                               "lud-kernel8-sm70"};

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

ConvertOptions quiet_options(unsigned jobs) {
  ConvertOptions o;
  o.jobs = jobs;
  o.warn = nullptr;
  return o;
}

TEST(RoundTrip, EverySampleTraceSurvivesTextToContainerToText) {
  for (const char* name : kSampleTraces) {
    SCOPED_TRACE(name);
    test::ScratchDir dir("rt");
    const auto input = test::shared_traces() / name;
    const auto lst = dir / "t.lst";
    const ConvertReport r = convert_text_trace(input, lst, quiet_options(2));
    EXPECT_GT(r.warp_insts, 0u);

    TextTraceSource original(input, nullptr);
    auto container = open_trace(lst);
    EXPECT_EQ(test::compare_traces(original, *container), "");

    export_text_trace(*container, dir / "exported");
    TextTraceSource exported(dir / "exported", nullptr);
    TextTraceSource original_again(input, nullptr);
    EXPECT_EQ(test::compare_traces(original_again, exported), "");
  }
}

TEST(RoundTrip, IndexTotalsMatchAFullScan) {
  for (const char* name : kSampleTraces) {
    SCOPED_TRACE(name);
    test::ScratchDir dir("idx");
    convert_text_trace(test::shared_traces() / name, dir / "t.lst", quiet_options(2));
    auto indexed = open_trace(dir / "t.lst");
    TextTraceSource scanned(test::shared_traces() / name, nullptr);
    for (uint32_t k = 0; k < indexed->manifest().kernels.size(); ++k) {
      const KernelSummary a = indexed->summarize(k);
      const KernelSummary b = scanned.summarize(k);
      EXPECT_EQ(a.blocks, b.blocks);
      EXPECT_EQ(a.warps, b.warps);
      EXPECT_EQ(a.warp_insts, b.warp_insts);
      EXPECT_EQ(a.mem_insts, b.mem_insts);
      EXPECT_EQ(a.thread_insts, b.thread_insts);
      std::map<std::string, uint64_t> ha(a.opcode_counts.begin(), a.opcode_counts.end());
      std::map<std::string, uint64_t> hb(b.opcode_counts.begin(), b.opcode_counts.end());
      EXPECT_EQ(ha, hb);
    }
  }
}

TEST(RoundTrip, ConvertOutputIsIdenticalForAnyJobCount) {
  test::ScratchDir dir("jobs");
  const auto input = test::shared_traces() / "bfs-rodinia-sm80";
  ConvertOptions one = quiet_options(1), many = quiet_options(4);
  one.chunk_text_bytes = many.chunk_text_bytes = 64 << 10;  // many chunks in flight
  convert_text_trace(input, dir / "one.lst", one);
  convert_text_trace(input, dir / "many.lst", many);
  const std::string a = file_bytes(dir / "one.lst"), b = file_bytes(dir / "many.lst");
  EXPECT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b) << "conversion depends on the job count";
}

TEST(RoundTrip, RandomAccessReturnsEveryBlock) {
  test::ScratchDir dir("ra");
  const auto input = test::shared_traces() / "vectoradd-sm80";
  ConvertOptions o = quiet_options(2);
  o.chunk_text_bytes = 16 << 10;
  convert_text_trace(input, dir / "t.lst", o);
  ContainerReader reader(dir / "t.lst");
  ASSERT_EQ(reader.block_count(0), 196u);
  EXPECT_GT(reader.chunk_count(0), 10u);
  TextTraceSource text(input, nullptr);
  std::vector<BlockTrace> in_order;
  auto cursor = text.open_blocks(0);
  BlockTrace b;
  while (cursor->next(b)) in_order.push_back(b);
  std::mt19937 rng(7);
  for (int i = 0; i < 50; ++i) {
    const uint32_t ordinal = rng() % reader.block_count(0);
    const BlockTrace got = reader.read_block(0, ordinal);
    EXPECT_EQ(got.id, in_order[ordinal].id);
    EXPECT_EQ(got.warp_insts(), in_order[ordinal].warp_insts());
  }
}

// Rewrites a grouped trace as the tracer's raw output: every line prefixed
// with "tb_x tb_y tb_z warp", warps and blocks interleaved round-robin.
void write_raw_version(TraceSource& src, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream list(dir / "kernelslist");
  const TraceManifest& m = src.manifest();
  for (const TraceCommand& c : m.commands) {
    if (c.kind == TraceCommand::Kind::kMemcpy) {
      char line[96];
      std::snprintf(line, sizeof line, "MemcpyHtoD,0x%016llx,%llu", (unsigned long long)c.memcpy.address,
                    (unsigned long long)c.memcpy.bytes);
      list << line << "\n";
      continue;
    }
    const KernelInfo& k = m.kernels[c.kernel_index];
    const std::string fname = "kernel-" + std::to_string(k.kernel_id) + ".trace";
    list << fname << "\n";
    // Export one kernel as grouped text, then re-emit its lines interleaved.
    std::vector<BlockTrace> blocks;
    auto cur = src.open_blocks(c.kernel_index);
    BlockTrace b;
    while (cur->next(b)) blocks.push_back(b);
    std::ofstream out(dir / fname);
    for (const auto& [key, value] : k.header_fields) out << "-" << key << " = " << value << "\n";
    out << "\n#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num [reg_dests] "
           "opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n";
    const StaticTable& t = src.static_table(c.kernel_index);
    size_t remaining = 1;
    for (size_t step = 0; remaining; ++step) {
      remaining = 0;
      for (const BlockTrace& blk : blocks)
        for (const WarpTrace& w : blk.warps) {
          if (step >= w.insts.size()) continue;
          ++remaining;
          const WarpInstruction& wi = w.insts[step];
          const StaticInstruction& st = t.inst(wi.static_id);
          out << blk.id.x << " " << blk.id.y << " " << blk.id.z << " " << w.warp_id << " ";
          if (k.lineinfo) out << st.line << " ";
          char pcmask[48];
          std::snprintf(pcmask, sizeof pcmask, "%04llx %08x ", (unsigned long long)st.pc, wi.active_mask);
          out << pcmask << st.dsts.size() << " ";
          for (auto r : st.dsts) out << r.str() << " ";
          out << t.opcode(st.opcode_id) << " " << st.srcs.size() << " ";
          for (auto r : st.srcs) out << r.str() << " ";
          out << st.mem_width << " ";
          if (st.is_memory()) {
            LaneBuffer buf;
            const auto lanes = w.lane_addresses(wi, t, buf);
            out << "0 ";  // address mode 0: every active lane listed
            for (uint64_t a : lanes) {
              char h[24];
              std::snprintf(h, sizeof h, "0x%llx ", (unsigned long long)a);
              out << h;
            }
          }
          if (k.has_immediate_field()) out << (st.has_immediate ? st.immediate : 0);
          out << "\n";
        }
    }
  }
}

TEST(RoundTrip, RawTracerOutputConvertsToTheSameTraceAsPostProcessedText) {
  test::ScratchDir dir("raw");
  const auto input = test::shared_traces() / "bfs-rodinia-sm80";
  {
    TextTraceSource grouped(input, nullptr);
    write_raw_version(grouped, dir / "raw");
  }
  ConvertOptions o = quiet_options(2);
  o.raw_group_budget = 256 << 10;  // force spilling
  convert_text_trace(dir / "raw", dir / "raw.lst", o);
  auto from_raw = open_trace(dir / "raw.lst");
  for (const KernelInfo& k : from_raw->manifest().kernels) EXPECT_TRUE(k.raw_tracer_output);
  // Raw blocks come out in linear block order; the post-processed files list them that way too.
  TextTraceSource grouped(input, nullptr);
  EXPECT_EQ(test::compare_traces(grouped, *from_raw, /*strict_headers=*/true), "");
}

}  // namespace
}  // namespace lockstep
