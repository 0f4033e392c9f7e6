// Against hardware: the sample trace recorded on an H100 PCIe with the kernel's
// cycles as Nsight Compute measured them (its `gt` file, gpc__cycles_elapsed.max)
// run on the shipped H100-PCIe config, whose kernel-level costs (launch.*) are
// what that count holds beside the blocks' work.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "configs/spec/gpu_config.h"
#include "frontend/convert/open_trace.h"
#include "parallel/simulation.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

TEST(HardwareReference, H100PcieConfigIsThePcieCard) {
  const GpuSpec spec = load_gpu_spec("H100-PCIe");
  EXPECT_EQ(spec.name, "H100-PCIe");
  EXPECT_EQ(spec.sms, 114u);
  EXPECT_EQ(spec.memory.l2_bytes(), 50ull * 1024 * 1024);
  EXPECT_DOUBLE_EQ(spec.clocks.core_mhz, 1755);
  // 5120-bit HBM2e at about 2 TB/s.
  const double bytes_per_second = double(spec.memory.dram.channels) * spec.memory.dram.bus_width_bits / 8 *
                                  spec.memory.dram.data_rate * spec.clocks.dram_mhz * 1e6;
  EXPECT_EQ(spec.memory.dram.channels * spec.memory.dram.bus_width_bits, 5120u);
  EXPECT_NEAR(bytes_per_second / 1e9, 2039, 1);
}

TEST(HardwareReference, FfmaKernelOnH100PcieWithinTenPercentOfTheGpu) {
  const std::filesystem::path dir = test::shared_traces() / "ffma-4096-16-h100";
  std::ifstream gt(dir / "gt");
  ASSERT_TRUE(gt.good()) << dir / "gt";
  uint64_t hardware = 0;
  gt >> hardware;
  ASSERT_EQ(hardware, 6608u) << "the gt file the trace folder's README describes";
  auto src = open_trace(dir, nullptr);
  RunOptions o;
  o.warn = nullptr;
  const SimulationReport r = simulate(*src, load_gpu_spec("H100-PCIe"), o);
  ASSERT_EQ(r.kernels.size(), 1u);
  const double error = std::abs(double(r.kernels[0].cycles) - double(hardware)) / double(hardware);
  EXPECT_LT(error, 0.10) << "simulated " << r.kernels[0].cycles << " cycles, hardware " << hardware;
}

}  // namespace
}  // namespace lockstep
