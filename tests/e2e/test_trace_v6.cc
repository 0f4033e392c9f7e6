// A real sample trace rewritten in Accel-Sim's version 6 form (cluster lines
// in every block, a second immediate on some lines, "NoVal" or "Val" and
// register values at every line's end): the container keeps every field it
// reads (cluster places through segmented blocks too), export and a second
// round trip are byte-for-byte stable, and every model's statistics equal
// those of the version 5 original (the fields carry no timing). The same
// trace as a .tracez (zstd sub-chunks, with and without a dictionary) reads
// as its text does.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "configs/spec/gpu_config.h"
#include "frontend/convert/converter.h"
#include "frontend/convert/exporter.h"
#include "frontend/convert/open_trace.h"
#include "frontend/text/text_trace_source.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"
#include "tests/e2e/trace_compare.h"
#include "tests/frontend/tracez_writer.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// vectoradd-sm80 as version 6: blocks in clusters of two along x; a line
// ends in "7 NoVal" (a second immediate), "NoVal", or "Val" with one shared
// value per destination and 32 lane values per source, by its PC (as a
// tracer would: these are static fields, and the values' presence is).
std::filesystem::path write_v6_vectoradd(const test::ScratchDir& dir) {
  const auto src = test::shared_traces() / "vectoradd-sm80";
  const auto out = dir / "v6";
  std::filesystem::create_directories(out);
  std::filesystem::copy_file(src / "kernelslist.g", out / "kernelslist.g");
  std::istringstream in(file_bytes(src / "kernel-1.traceg"));
  std::ofstream os(out / "kernel-1.traceg");
  const std::regex inst(R"(^[0-9a-f]{4} [0-9a-f]{8} .*)");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("-accelsim tracer version", 0) == 0) {
      os << "-accelsim tracer version = 6\n";
    } else if (line.rfind("thread block = ", 0) == 0) {
      unsigned x = 0, y = 0, z = 0;
      std::sscanf(line.c_str(), "thread block = %u,%u,%u", &x, &y, &z);
      os << line << "\ncluster id = " << x / 2 << "," << y << "," << z << "\ncluster cta = " << x % 2
         << ",0,0\ncluster rank = " << x % 2 << "\n";
    } else if (std::regex_match(line, inst)) {
      std::istringstream f(line);
      std::string pc, mask, tok;
      unsigned dsts = 0, srcs = 0;
      f >> pc >> mask >> dsts;
      for (unsigned i = 0; i < dsts; ++i) f >> tok;
      f >> tok >> srcs;
      while (!line.empty() && line.back() == ' ') line.pop_back();
      os << line;
      switch (std::stoul(pc, nullptr, 16) / 16 % 3) {
        case 0: os << " 7 NoVal"; break;
        case 1: os << " NoVal"; break;
        default:
          os << " Val";
          for (unsigned i = 0; i < dsts; ++i) os << " 1 0x1f";
          for (unsigned i = 0; i < srcs; ++i) {
            os << " 32";
            for (int lane = 0; lane < 32; ++lane) os << " " << std::hex << lane * 4 << std::dec;
          }
      }
      os << "\n";
    } else {
      os << line << "\n";
    }
  }
  return out;
}

ConvertOptions options(uint32_t segment_insts) {
  ConvertOptions o;
  o.jobs = 1;
  o.warn = nullptr;
  o.segment_insts = segment_insts;
  return o;
}

TEST(TraceV6, ContainerKeepsEveryFieldAndExportIsStable) {
  test::ScratchDir dir("v6");
  const auto text = write_v6_vectoradd(dir);
  for (uint32_t segment_insts : {256u, 4u}) {  // 4: every warp in several segments
    SCOPED_TRACE(segment_insts);
    const auto lst = dir / ("t" + std::to_string(segment_insts) + ".lst");
    convert_text_trace(text, lst, options(segment_insts));
    TextTraceSource original(text, nullptr);
    auto container = open_trace(lst);
    EXPECT_EQ(test::compare_traces(original, *container), "");
    auto cursor = container->open_blocks(0);
    BlockTrace b;
    uint32_t blocks = 0;
    while (cursor->next(b)) {
      ++blocks;
      ASSERT_TRUE(b.has_cluster);
      EXPECT_EQ(b.cluster.id.x, b.id.x / 2);
      EXPECT_EQ(b.cluster.rank, b.id.x % 2);
    }
    EXPECT_EQ(blocks, 196u);
  }
  // Export writes NoVal where values were (they are not kept); from there a
  // round trip reproduces the files byte for byte.
  auto container = open_trace(dir / "t256.lst");
  export_text_trace(*container, dir / "x1");
  const std::string exported = file_bytes(dir / "x1" / "kernel-1.traceg");
  EXPECT_NE(exported.find("thread block = 5,0,0\ncluster id = 2,0,0\ncluster cta = 1,0,0\ncluster rank = 1\n"),
            std::string::npos);
  EXPECT_EQ(exported.find(" Val"), std::string::npos);
  EXPECT_NE(exported.find(" 0 7 NoVal \n"), std::string::npos);
  convert_text_trace(dir / "x1", dir / "x1.lst", options(256));
  auto again = open_trace(dir / "x1.lst");
  export_text_trace(*again, dir / "x2");
  EXPECT_EQ(file_bytes(dir / "x2" / "kernel-1.traceg"), exported);
  EXPECT_EQ(file_bytes(dir / "x2" / "kernelslist.g"), file_bytes(dir / "x1" / "kernelslist.g"));
}

std::string counters_of(TraceSource& src, const std::string& model) {
  RunOptions o;
  o.model = model;
  const std::string j = stats_json(simulate(src, load_gpu_spec("A100", {}), o));
  const size_t from = j.find("\"kernels\"");
  return j.substr(from, j.find("\"run\"") - from);
}

TEST(TraceV6, EveryModelGivesTheVersion5OriginalsCounters) {
  test::ScratchDir dir("v6run");
  const auto text = write_v6_vectoradd(dir);
  convert_text_trace(text, dir / "t.lst", options(256));
  for (const char* model : {"cycle", "memory", "abstract"}) {
    SCOPED_TRACE(model);
    TextTraceSource v5(test::shared_traces() / "vectoradd-sm80", nullptr);
    auto v6 = open_trace(dir / "t.lst");
    const std::string a = counters_of(v5, model), b = counters_of(*v6, model);
    EXPECT_GT(a.size(), 200u);
    EXPECT_EQ(a, b);
  }
}

TEST(TraceV6, TracezReadsAsItsText) {
  test::ScratchDir dir("tracez");
  const auto text = write_v6_vectoradd(dir);
  const test::TracezText split = test::split_traceg(file_bytes(text / "kernel-1.traceg"));
  ASSERT_EQ(split.blocks.size(), 196u);
  std::string list = file_bytes(text / "kernelslist.g");
  list.replace(list.find("kernel-1.traceg"), 15, "kernel-1.tracez");
  // A dictionary of trace text (zstd's raw-content form), as Accel-Sim trains one.
  const std::string dict = split.blocks[0].warps[0][0] + "\n" + split.blocks[0].warps[0][1] + "\n";
  for (const auto& [subchunk, with_dict] : {std::pair{2048u, false}, std::pair{5u, true}}) {
    SCOPED_TRACE(subchunk);
    const auto tz = dir / ("tz" + std::to_string(subchunk));
    std::filesystem::create_directories(tz);
    std::ofstream(tz / "kernelslist.g") << list;
    std::ofstream(tz / "kernel-1.tracez", std::ios::binary) << test::tracez_bytes(split, subchunk, with_dict ? dict : "");
    TextTraceSource from_text(text, nullptr), from_tracez(tz, nullptr);
    EXPECT_EQ(test::compare_traces(from_text, from_tracez), "");
    convert_text_trace(tz, dir / "tz.lst", options(256));
    auto lst = open_trace(dir / "tz.lst");
    TextTraceSource v5(test::shared_traces() / "vectoradd-sm80", nullptr);
    EXPECT_EQ(counters_of(*lst, "cycle"), counters_of(v5, "cycle"));
    std::filesystem::remove(dir / "tz.lst");
  }
}

}  // namespace
}  // namespace lockstep
