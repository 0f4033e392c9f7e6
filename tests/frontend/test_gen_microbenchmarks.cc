// The microbenchmark generators (lockstep gen ffma_chain, pchase_l1/l2/dram/shared,
// empty_kernel): valid traces on both archs that round-trip (text -> .lst
// gives the same statistics), each counting what its --size says, and each
// hitting where it is meant to: derived per workload below.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "configs/spec/gpu_config.h"
#include "frontend/convert/converter.h"
#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

GenSummary gen(const std::filesystem::path& dir, const std::string& workload, uint64_t size, uint32_t arch = 70) {
  GenOptions o;
  o.workload = workload;
  o.size = size;
  o.arch = arch;
  return generate_trace(o, dir);
}

SimulationReport run(const std::filesystem::path& trace, const std::string& gpu = "QV100") {
  auto src = open_trace(trace, nullptr);
  RunOptions o;
  o.warn = nullptr;
  return simulate(*src, load_gpu_spec(gpu), o);
}

std::string stats_without_run(const SimulationReport& r) {
  nlohmann::json j = nlohmann::json::parse(stats_json(r));
  j.erase("run");
  j.erase("producer");
  return j.dump();
}

TEST(GenMicrobenchmarks, ListedApartFromTheWorkloads) {
  EXPECT_EQ(microbenchmark_names(),
            (std::vector<std::string>{"ffma_chain", "pchase_l1", "pchase_l2", "pchase_dram", "pchase_shared", "empty_kernel"}));
  for (const std::string& m : microbenchmark_names()) {
    EXPECT_FALSE(workload_summary(m).empty()) << m;
    for (const std::string& w : workload_names()) EXPECT_NE(m, w);
  }
}

TEST(GenMicrobenchmarks, EveryOneRoundTripsOnBothArchs) {
  for (const std::string& m : microbenchmark_names())
    for (uint32_t arch : {70u, 80u}) {
      SCOPED_TRACE(m + " sm_" + std::to_string(arch));
      test::ScratchDir dir("gen-micro");
      gen(dir / "text", m, 200, arch);
      ConvertOptions c;
      c.jobs = 1;
      c.warn = nullptr;
      convert_text_trace(dir / "text", dir / "t.lst", c);
      const std::string gpu = arch == 80 ? "A100" : "QV100";
      EXPECT_EQ(stats_without_run(run(dir / "text", gpu)), stats_without_run(run(dir / "t.lst", gpu)));
    }
}

// ffma_chain: one block, one warp, round(size / 32) iterations of 32 FFMAs.
TEST(GenMicrobenchmarks, FfmaChainIsOneWarpOfDependentFfmas) {
  test::ScratchDir dir("gen-ffma");
  const GenSummary s = gen(dir / "t", "ffma_chain", 3200);
  EXPECT_EQ(s.blocks, 1u);
  const SimulationReport r = run(dir / "t");
  ASSERT_EQ(r.kernels.size(), 1u);
  // 4 set-up instructions, 100 iterations of 32 FFMAs + IADD3, ISETP, BRA, then 2 MOVs, STG, EXIT.
  EXPECT_EQ(r.kernels[0].stats.warp_insts, 4u + 100 * 35 + 4);
  // Dependent: at least one SP latency per FFMA.
  EXPECT_GE(r.kernels[0].cycles, 3200u * load_gpu_spec("QV100").sm.units.at(0).latency);
}

// pchase_shared: one warp, round(size / 8) iterations of 8 dependent LDS; each
// load waits for the one before, so every cycle of shared latency more costs
// one cycle per load, and no load has a bank conflict.
TEST(GenMicrobenchmarks, SharedChaseCostsOneSharedLatencyPerLoad) {
  test::ScratchDir dir("gen-shared-chase");
  const uint64_t loads = 800;
  const GenSummary s = gen(dir / "t", "pchase_shared", loads);
  EXPECT_EQ(s.blocks, 1u);
  GpuSpec spec = load_gpu_spec("QV100");
  uint64_t cycles[2];
  for (int i = 0; i < 2; ++i) {
    if (i) spec.sm.shared_latency += 10;
    auto src = open_trace(dir / "t", nullptr);
    RunOptions o;
    o.warn = nullptr;
    const SimulationReport r = simulate(*src, spec, o);
    ASSERT_EQ(r.kernels.size(), 1u);
    // 10 set-up instructions, 100 iterations of 8 LDS + IADD3, ISETP, BRA, then 2 MOVs, IMAD, STG, EXIT.
    EXPECT_EQ(r.kernels[0].stats.warp_insts, 10u + 100 * 11 + 5);
    EXPECT_EQ(r.kernels[0].stats.shared_bank_conflicts, 0u);
    cycles[i] = r.kernels[0].cycles;
  }
  // Each of the loads - 1 loads after the first waits 10 cycles more for its
  // address; the first load's and the last one's may overlap other work.
  EXPECT_GE(cycles[1] - cycles[0], (loads - 1) * 10);
  EXPECT_LE(cycles[1] - cycles[0], loads * 10);
}

// empty_kernel: size blocks, one EXIT each.
TEST(GenMicrobenchmarks, EmptyKernelIsSizeBlocksOfOneExit) {
  test::ScratchDir dir("gen-empty");
  const GenSummary s = gen(dir / "t", "empty_kernel", 777);
  EXPECT_EQ(s.blocks, 777u);
  EXPECT_EQ(s.warp_insts, 777u);
}

// The chases: size loads of one lane each (8 per iteration); where they hit.
TEST(GenMicrobenchmarks, PointerChasesHitWhereTheirFootprintSays) {
  const uint64_t loads = 1600;
  struct Expect {
    const char* workload;
    bool l1_hits, l2_hits, dram;
  };
  for (const Expect& e : {Expect{"pchase_l1", true, false, false}, Expect{"pchase_l2", false, true, false},
                          Expect{"pchase_dram", false, false, true}}) {
    SCOPED_TRACE(e.workload);
    test::ScratchDir dir("gen-chase");
    gen(dir / "t", e.workload, loads);
    const SimulationReport r = run(dir / "t", "H100");
    ASSERT_EQ(r.kernels.size(), 1u);
    const nlohmann::json k = nlohmann::json::parse(stats_json(r)).at("kernels").at(0).at("stats");
    const uint64_t l1_sectors = k.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    const uint64_t l1_hits = k.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum");
    const uint64_t l2_reads = k.at("lts__t_sectors_op_read.sum"), l2_hits = k.at("lts__t_sectors_op_read_lookup_hit.sum");
    EXPECT_EQ(l1_sectors, loads) << "one sector per load";
    if (e.l1_hits) {
      EXPECT_EQ(l1_hits, loads - 32) << "all but the first pass over 32 lines";
    } else {
      EXPECT_EQ(l1_hits, 0u);
    }
    EXPECT_EQ(l2_reads, loads - l1_hits);
    if (e.l2_hits) {
      EXPECT_EQ(l2_hits, l2_reads) << "the copy put the whole 1 MB in the L2";
    }
    if (e.dram) {
      EXPECT_EQ(l2_hits, 0u);
      EXPECT_EQ(k.at("dram__sectors_read.sum").get<uint64_t>(), loads);
    }
  }
}

}  // namespace
}  // namespace lockstep
