// Whole-GPU memory-system rules: the copy engine warms the L2 for later
// kernels; every real trace runs on the full memory system and reports the
// Nsight Compute counters.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "configs/spec/gpu_config.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

SimulationReport run(const std::filesystem::path& trace, const std::string& gpu) {
  auto src = open_trace(trace, nullptr);
  const GpuSpec spec = load_gpu_spec(gpu, {});
  RunOptions o;
  return simulate(*src, spec, o);
}

// The same trace without its MemcpyHtoD lines.
void drop_memcpys(const std::filesystem::path& dir) {
  std::ifstream in(dir / "kernelslist.g");
  std::stringstream kept;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("MemcpyHtoD", 0) != 0) kept << line << "\n";
  in.close();
  std::ofstream(dir / "kernelslist.g") << kept.str();
}

TEST(MemorySystem, MemcpyWarmedL2TurnsAKernelsFirstReadsIntoHits) {
  test::ScratchDir dir("memcpy");
  GenOptions g;
  g.workload = "vecadd";  // reads a and b once each, both copied to the device first
  g.size = 40'000;
  g.sms = 80;
  generate_trace(g, dir / "warm");
  generate_trace(g, dir / "cold");
  drop_memcpys(dir / "cold");
  const MemoryStats warm = run(dir / "warm", "QV100").kernels.at(0).memory;
  const MemoryStats cold = run(dir / "cold", "QV100").kernels.at(0).memory;
  ASSERT_GT(warm.l2.read_sectors, 1000u);
  // Warm: every read hits except the last, partly copied sector of each of
  // the two arrays (a partly written sector is fetched and merged).
  EXPECT_LE(warm.dram.read_sectors, 2u);
  EXPECT_GE(warm.l2.read_hits + 2, warm.l2.read_sectors);
  // Cold: every sector is read from DRAM once.
  EXPECT_EQ(cold.l2.read_hits, 0u);
  EXPECT_EQ(cold.dram.read_sectors, cold.l2.read_sectors);
}

TEST(MemorySystem, EveryRealTraceReportsTheMemoryCounters) {
  const char* names[] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
                         "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                         "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
                         "lts__t_sectors_op_read.sum",
                         "lts__t_sectors_op_write.sum",
                         "lts__t_sectors_op_atom.sum",
                         "lts__t_sectors_op_read_lookup_hit.sum",
                         "dram__sectors_read.sum",
                         "dram__sectors_write.sum",
                         "lockstep__icnt_request_packets",
                         "lockstep__icnt_reply_packets",
                         "lockstep__dram_row_hits",
                         "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                         "lockstep__l1_reservation_fails",
                         "lockstep__l2_reservation_fails",
                         "lockstep__l2_mshr_merges"};
  for (const test::RealTrace& c : test::kRealTraces) {
    SCOPED_TRACE(c.trace);
    const SimulationReport r = run(test::shared_traces() / c.trace, c.gpu);
    ASSERT_FALSE(r.kernels.empty());
    const std::string json = stats_json(r);
    for (const char* n : names) EXPECT_NE(json.find(std::string("\"") + n + "\""), std::string::npos) << n;
    MemoryStats total;
    SmStats sm;
    for (const KernelReport& k : r.kernels) {
      total += k.memory;
      sm += k.stats;
    }
    // Every global load sector the L1 missed reached the L2 through the crossbar, and came back.
    EXPECT_EQ(total.l2.read_sectors, sm.l1.miss_sectors);
    EXPECT_EQ(total.icnt.request_packets, total.icnt.reply_packets);
    EXPECT_EQ(total.icnt.request_packets, total.l2.read_sectors + total.l2.write_sectors + total.l2.atomic_sectors);
  }
}

}  // namespace
}  // namespace lockstep
