// --cache-control (RunOptions::cache_control), Nsight Compute's meaning: with
// "none" a kernel finds in the L2 what the kernels and copies before it left;
// with "all" every cache is flushed before each kernel. Two kernels read the
// same 32 lines (one warp, one 128-byte line per load, every line once per
// kernel); a copy before the first covers 16 of them. Derived counts, in L2
// read sectors (4 per line):
//   none: kernel 1 hits the 16 copied lines (64 sectors), kernel 2 all 32 (128);
//   all:  neither hits (each starts with an empty L2, the copy flushed too).
// Both read 128 sectors; nothing else differs but the hits and the time.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "configs/spec/gpu_config.h"
#include "frontend/text/text_trace_source.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

constexpr uint64_t kBase = 0x7f0000000000;
constexpr int kLines = 32;

void write_reader(const std::filesystem::path& file, int id) {
  std::ofstream out(file);
  out << "-kernel name = reader" << id << "\n-kernel id = " << id
      << "\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 16\n-binary version = 70\n"
         "-cuda stream id = 0\n-accelsim tracer version = 3\n\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = "
      << kLines + 1 << "\n";
  for (int i = 0; i < kLines; ++i) {
    char line[96];
    std::snprintf(line, sizeof line, "%04x ffffffff 1 R%d LDG.E 1 R2 4 1 0x%llx 4\n", i * 16, 4 + i % 8,
                  (unsigned long long)(kBase + 128ull * i));
    out << line;
  }
  char exit[64];
  std::snprintf(exit, sizeof exit, "%04x ffffffff 0 EXIT 0 0\n", kLines * 16);
  out << exit << "#END_TB\n";
}

SimulationReport run(const std::filesystem::path& dir, CacheControl c) {
  TextTraceSource src(dir, nullptr);
  RunOptions o;
  o.cache_control = c;
  o.warn = nullptr;
  return simulate(src, load_gpu_spec("QV100"), o);
}

TEST(CacheControl, AllFlushesTheCachesBeforeEachKernelNoneKeepsThem) {
  test::ScratchDir dir("cache-control");
  write_reader(dir / "kernel-1.traceg", 1);
  write_reader(dir / "kernel-2.traceg", 2);
  char copy[64];
  std::snprintf(copy, sizeof copy, "MemcpyHtoD,0x%llx,%d\n", (unsigned long long)kBase, 128 * kLines / 2);
  std::ofstream(dir / "kernelslist.g") << copy << "kernel-1.traceg\nkernel-2.traceg\n";
  const SimulationReport none = run(dir.path(), CacheControl::kNone), all = run(dir.path(), CacheControl::kAll);
  ASSERT_EQ(none.kernels.size(), 2u);
  ASSERT_EQ(all.kernels.size(), 2u);
  for (const SimulationReport* r : {&none, &all})
    for (const KernelReport& k : r->kernels) EXPECT_EQ(k.memory.l2.read_sectors, 4u * kLines);
  EXPECT_EQ(none.kernels[0].memory.l2.read_hits, 4u * kLines / 2);
  EXPECT_EQ(none.kernels[1].memory.l2.read_hits, 4u * kLines);
  EXPECT_EQ(all.kernels[0].memory.l2.read_hits, 0u);
  EXPECT_EQ(all.kernels[1].memory.l2.read_hits, 0u);
  // The same instructions either way; the stats JSON says which was used.
  EXPECT_EQ(none.kernels[1].stats.warp_insts, all.kernels[1].stats.warp_insts);
  EXPECT_EQ(nlohmann::json::parse(stats_json(none)).at("cache_control"), "none");
  EXPECT_EQ(nlohmann::json::parse(stats_json(all)).at("cache_control"), "all");
}

TEST(CacheControl, UnknownSettingIsAnError) {
  EXPECT_THROW(parse_cache_control("some"), std::invalid_argument);
  EXPECT_EQ(parse_cache_control("all"), CacheControl::kAll);
  EXPECT_EQ(parse_cache_control("none"), CacheControl::kNone);
}

}  // namespace
}  // namespace lockstep
