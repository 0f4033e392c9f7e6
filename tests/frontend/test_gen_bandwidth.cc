// The bandwidth microbenchmark workloads of `lockstep gen` (stream_copy,
// l2_read, l1_read), read back through the trace parser: opcode mix,
// coalescing (every float4 warp access is 4 full 128 B lines), footprint
// against the shipped GPUs' L1D and L2 sizes, and reuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "configs/spec/gpu_config.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kLine = 128;

GenSummary gen(const fs::path& dir, const std::string& workload, uint64_t size, uint32_t arch = 70,
               uint32_t sms = 80) {
  GenOptions o;
  o.workload = workload;
  o.size = size;
  o.arch = arch;
  o.sms = sms;
  return generate_trace(o, dir);
}

// One global memory warp instruction as the parser returns it.
struct Access {
  uint32_t kernel;
  uint32_t block;  // blockIdx.x
  uint32_t warp;
  const std::string* opcode;
  bool store;
  uint32_t mask;
  std::vector<uint64_t> addrs;
  uint32_t bytes;  // per lane
};

// What a trace holds, read through open_trace.
struct Profile {
  std::map<std::string, uint64_t> opcodes;
  uint64_t warp_insts = 0;
  uint32_t kernels = 0;
  uint64_t memcpy_bytes = 0;
  std::vector<KernelInfo> infos;
};

Profile read_trace(const fs::path& dir, const std::function<void(const Access&)>& visit = {}) {
  Profile p;
  auto trace = open_trace(dir);
  for (const TraceCommand& c : trace->manifest().commands)
    if (c.kind == TraceCommand::Kind::kMemcpy) p.memcpy_bytes += c.memcpy.bytes;
  p.kernels = uint32_t(trace->manifest().kernels.size());
  p.infos = trace->manifest().kernels;
  for (uint32_t k = 0; k < p.kernels; ++k) {
    auto blocks = trace->open_blocks(k);
    BlockTrace b;
    while (blocks->next(b)) {
      const StaticTable& table = trace->static_table(k);
      for (const WarpTrace& w : b.warps) {
        for (const WarpInstruction& wi : w.insts) {
          ++p.warp_insts;
          const StaticInstruction& s = table.inst(wi.static_id);
          const std::string& op = table.opcode(s.opcode_id);
          ++p.opcodes[op];
          if (!s.is_memory() || !visit) continue;
          LaneBuffer buf;
          const auto lanes = w.lane_addresses(wi, table, buf);
          visit(Access{k, b.id.x, w.warp_id, &op, s.traits.op == MemOp::kStore, wi.active_mask,
                       std::vector<uint64_t>(lanes.begin(), lanes.end()), s.access_bytes()});
        }
      }
    }
  }
  return p;
}

// The 128 B lines an access covers, with the bytes covered in each.
std::map<uint64_t, uint64_t> lines_of(const Access& a) {
  std::map<uint64_t, uint64_t> lines;
  for (uint64_t addr : a.addrs) lines[addr / kLine] += a.bytes;
  return lines;
}
bool four_full_lines(const Access& a) {
  const auto lines = lines_of(a);
  return a.mask == 0xffffffffu && lines.size() == 4 &&
         std::all_of(lines.begin(), lines.end(), [](const auto& l) { return l.second == kLine; });
}

// The largest L1D and the smallest L2 among the shipped GPUs.
struct CacheBounds {
  uint64_t largest_l1 = 0;
  uint64_t smallest_l2 = ~uint64_t(0);
  uint64_t qv100_l1 = 0;  // with the smallest shared carve-out
  uint64_t qv100_l2 = 0;
};
CacheBounds cache_bounds() {
  CacheBounds c;
  for (const fs::path& cfg : shipped_gpu_configs()) {
    const GpuSpec g = load_gpu_spec(cfg.string());
    const uint32_t min_carveout = *std::min_element(g.sm.shared_carveouts_kb.begin(), g.sm.shared_carveouts_kb.end());
    const uint64_t l1 =
        g.memory.l1d.adaptive ? uint64_t(g.sm.unified_l1_shared_kb - min_carveout) * 1024 : g.memory.l1d.base_bytes();
    c.largest_l1 = std::max(c.largest_l1, l1);
    c.smallest_l2 = std::min(c.smallest_l2, g.memory.l2_bytes());
    if (g.name == "QV100") {
      c.qv100_l1 = l1;
      c.qv100_l2 = g.memory.l2_bytes();
    }
  }
  return c;
}

TEST(GenBandwidth, CacheBoundsOfTheShippedGpus) {
  const CacheBounds c = cache_bounds();
  EXPECT_EQ(c.largest_l1, 256u * 1024);        // H100
  EXPECT_EQ(c.smallest_l2, 2u * 1024 * 1024);  // GTX 1080
  EXPECT_EQ(c.qv100_l1, 128u * 1024);
  EXPECT_EQ(c.qv100_l2, 6u * 1024 * 1024);
}

TEST(GenBandwidth, StreamCopyMovesEachElementOnceInFullLines) {
  for (uint32_t arch : {70u, 80u}) {
    SCOPED_TRACE(arch);
    test::ScratchDir scratch("gen-bw-copy");
    gen(scratch / "t", "stream_copy", 200'000, arch);
    std::set<uint64_t> read_lines, written_lines;
    uint64_t loads = 0, stores = 0, not_coalesced = 0;
    const Profile p = read_trace(scratch / "t", [&](const Access& a) {
      (a.store ? stores : loads) += 1;
      if (!four_full_lines(a)) ++not_coalesced;
      for (const auto& [line, bytes] : lines_of(a)) (a.store ? written_lines : read_lines).insert(line);
    });
    const std::string ld = arch == 70 ? "LDG.E.128.SYS" : "LDG.E.128";
    const std::string st = arch == 70 ? "STG.E.128.SYS" : "STG.E.128";
    EXPECT_EQ(p.opcodes.at(ld), loads);
    EXPECT_EQ(p.opcodes.at(st), stores);
    EXPECT_EQ(loads, stores);
    EXPECT_GT(loads, 0u);
    EXPECT_EQ(not_coalesced, 0u);
    // Every element once: no line is read (or written) twice.
    EXPECT_EQ(read_lines.size(), 4 * loads);
    EXPECT_EQ(written_lines.size(), 4 * stores);
    // The source is what the host copied, and it is larger than QV100's L2.
    EXPECT_EQ(read_lines.size() * kLine, p.memcpy_bytes);
    EXPECT_GT(p.memcpy_bytes, cache_bounds().qv100_l2);
    // One load and one store in a 7-instruction loop body.
    EXPECT_EQ(p.opcodes.at("IMAD.WIDE"), 2 * loads);
    EXPECT_EQ(p.opcodes.at("BRA"), loads);
  }
}

TEST(GenBandwidth, StreamCopyFillsEverySmWithAGridStrideLoop) {
  test::ScratchDir scratch("gen-bw-copy-grid");
  gen(scratch / "t", "stream_copy", 1'000'000, 80, 80);
  std::map<uint32_t, uint64_t> loads_per_warp;
  const Profile p = read_trace(scratch / "t", [&](const Access& a) {
    if (!a.store) ++loads_per_warp[a.block * 8 + a.warp];
  });
  ASSERT_EQ(p.kernels, 1u);
  EXPECT_EQ(p.infos[0].grid.x, 640u);  // 8 blocks of 256 threads per SM: 64 warps
  EXPECT_EQ(p.infos[0].block.x, 256u);
  // Every warp makes the same number of passes (n is whole grid passes).
  std::set<uint64_t> passes;
  for (const auto& [warp, n] : loads_per_warp) passes.insert(n);
  EXPECT_EQ(loads_per_warp.size(), 640u * 8);
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_GT(*passes.begin(), 1u);
  // ~1 M warp instructions copy about 73 B per instruction and array.
  EXPECT_GT(p.memcpy_bytes, 60u * 1000 * 1000);
}

TEST(GenBandwidth, L2ReadFootprintIsBetweenTheL1AndTheL2) {
  for (uint64_t size : {200'000ull, 1'000'000ull}) {
    SCOPED_TRACE(size);
    test::ScratchDir scratch("gen-bw-l2");
    gen(scratch / "t", "l2_read", size);
    std::set<uint64_t> lines;
    uint64_t loads = 0, stores = 0, not_coalesced = 0;
    const Profile p = read_trace(scratch / "t", [&](const Access& a) {
      if (a.store) {
        ++stores;
        return;
      }
      ++loads;
      if (!four_full_lines(a)) ++not_coalesced;
      for (const auto& [line, bytes] : lines_of(a)) lines.insert(line);
    });
    EXPECT_EQ(not_coalesced, 0u);
    EXPECT_EQ(p.opcodes.at("LDG.E.128.SYS"), loads);
    EXPECT_EQ(p.opcodes.at("STG.E.SYS"), stores);  // one 4-byte result per thread
    EXPECT_EQ(stores, 640u * 8);
    EXPECT_EQ(p.opcodes.at("FADD"), 4 * loads + 3 * stores);
    // The whole 1 MB buffer, and nothing else, whatever the size.
    EXPECT_EQ(lines.size() * kLine, 1024u * 1024);
    EXPECT_EQ(p.memcpy_bytes, 1024u * 1024);
    const CacheBounds c = cache_bounds();
    EXPECT_GE(lines.size() * kLine, 4 * c.largest_l1);
    EXPECT_LE(lines.size() * kLine, c.smallest_l2 / 2);
  }
}

TEST(GenBandwidth, L2ReadBlocksSharingAnSmReadDifferentRowsAndRotate) {
  // Blocks b and b + 80 run on the same SM (of 80): in every iteration they
  // read different 4 KB rows; each block moves to the next row every iteration.
  test::ScratchDir scratch("gen-bw-l2-rows");
  gen(scratch / "t", "l2_read", 2'000'000);
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> rows;  // (block, warp) -> row per iteration
  uint64_t base = ~uint64_t(0);
  read_trace(scratch / "t", [&](const Access& a) {
    if (a.store || a.kernel != 0) return;
    base = std::min(base, a.addrs[0] & ~uint64_t(4095));
    rows[{a.block, a.warp}].push_back(a.addrs[0]);
  });
  size_t iters = rows.begin()->second.size();
  ASSERT_GT(iters, 20u);
  for (auto& [key, v] : rows) {
    ASSERT_EQ(v.size(), iters);
    for (uint64_t& addr : v) addr = (addr - base) / 4096;
    for (size_t j = 0; j < iters; ++j) ASSERT_EQ(v[j], (key.first + j) % 256) << key.first << " " << j;
  }
  for (uint32_t sm = 0; sm < 80; ++sm)
    for (size_t j = 0; j < iters; ++j) {
      std::set<uint64_t> at_once;
      for (uint32_t b = sm; b < 640; b += 80) at_once.insert(rows[{b, 0}][j]);
      ASSERT_EQ(at_once.size(), 8u) << sm << " " << j;
    }
}

TEST(GenBandwidth, L1ReadRereadsSixteenKilobytesPerBlock) {
  for (uint32_t arch : {70u, 80u}) {
    SCOPED_TRACE(arch);
    test::ScratchDir scratch("gen-bw-l1");
    gen(scratch / "t", "l1_read", 500'000, arch);
    std::map<uint32_t, std::set<uint64_t>> block_lines;
    std::set<uint64_t> all_lines;
    uint64_t loads = 0, repeats = 0, not_coalesced = 0;
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint64_t>> warp_lines;
    const Profile p = read_trace(scratch / "t", [&](const Access& a) {
      if (a.store) return;
      ++loads;
      if (!four_full_lines(a)) ++not_coalesced;
      bool seen = true;
      for (const auto& [line, bytes] : lines_of(a)) {
        block_lines[a.block].insert(line);
        all_lines.insert(line);
        seen = !warp_lines[{a.block, a.warp}].insert(line).second && seen;
      }
      if (seen) ++repeats;
    });
    EXPECT_EQ(not_coalesced, 0u);
    EXPECT_EQ(p.opcodes.at(arch == 70 ? "LDG.E.128.SYS" : "LDG.E.128"), loads);
    ASSERT_EQ(p.infos[0].grid.x, 320u);  // 4 blocks per SM
    for (const auto& [block, lines] : block_lines) EXPECT_EQ(lines.size() * kLine, 16u * 1024) << block;
    EXPECT_EQ(all_lines.size() * kLine, 320u * 16 * 1024);  // blocks never share a line
    EXPECT_EQ(p.memcpy_bytes, 320u * 16 * 1024);
    // Only each warp's first four loads (one per row) are new; every later one re-reads.
    const uint64_t warps = 320u * 8;
    EXPECT_GT(loads, 10 * warps);
    EXPECT_EQ(repeats, loads - 4 * warps);
    // The blocks of one SM (grid / 80 of them) keep at most half of QV100's L1D.
    EXPECT_LE(uint64_t(p.infos[0].grid.x / 80) * 16 * 1024, cache_bounds().qv100_l1 / 2);
  }
}

TEST(GenBandwidth, SizeSetsTheWorkOfTheReadKernels) {
  for (const char* w : {"l2_read", "l1_read", "stream_copy"}) {
    SCOPED_TRACE(w);
    test::ScratchDir scratch("gen-bw-size");
    const GenSummary small = gen(scratch / "a", w, 300'000);
    const GenSummary large = gen(scratch / "b", w, 3'000'000);
    EXPECT_NEAR(double(small.warp_insts), 300'000.0, 300'000.0 * 0.2);
    EXPECT_NEAR(double(large.warp_insts), 3'000'000.0, 3'000'000.0 * 0.2);
    EXPECT_EQ(small.blocks, large.blocks);  // the grid already fills the GPU: more passes, not more blocks
  }
}

}  // namespace
}  // namespace lockstep
