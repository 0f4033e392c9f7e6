#pragma once
// The GPU assembly: SIMT clusters of SMs, the block dispatcher and the core
// cycle loop of the sequential schedule. Per core cycle, in order: the
// dispatcher hands at most one block to each SM that has room (SMs visited
// round robin from the one after the last that received a block; kernels in
// launch order), then every cluster ticks its SMs. SMs share nothing within a
// cycle, so the cluster order does not matter; `shuffle_seed` permutes it
// every cycle to prove that.
//
// With the memory system (not --perfect-memory) each core cycle first runs
// the memory side's interconnect, L2 and DRAM edges that fall after the
// previous core edge and no later than this one (parallel/clock_domains.h),
// then the dispatcher and the SMs, then commits the SMs' memory ports. A
// kernel's MemcpyHtoD commands run through the copy engine when it launches.
//
// Kernels start in trace order, the first at once, each later one
// `kernel_launch_latency` cycles after it could start: without
// `concurrent_kernels`, once the previous kernel finished; with it, once every
// running kernel has handed out all its blocks and none of them is on its
// CUDA stream. An SM holds blocks of one kernel at a time.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/kernel_program.h"
#include "core/sm.h"
#include "memsys/memory_stats.h"
#include "memsys/memory_system.h"
#include "parallel/clock_domains.h"
#include "frontend/trace/trace_source.h"
#include "parallel/gpu_spec.h"

namespace lockstep {

// A run that cannot go on: a stuck warp (watchdog) or an impossible kernel.
class SimulationError : public std::runtime_error {
 public:
  explicit SimulationError(const std::string& what) : std::runtime_error(what) {}
};

struct GpuRunOptions {
  std::optional<uint64_t> shuffle_seed;  // tick clusters in a random order each cycle
  uint64_t cycle_budget = 0;             // stop after this many cycles (0: no limit)
  // Called every 65536 cycles with (kernels finished, cycles so far, warp instructions so far).
  std::function<void(uint32_t, uint64_t, uint64_t)> progress;
};

struct KernelJob {
  uint32_t kernel_index = 0;
  KernelProgram* program = nullptr;  // extended as the kernel's static table grows (text traces)
  std::vector<MemcpyHtoD> copies_before;  // host-to-device copies that precede the launch
};

struct KernelResult {
  uint32_t kernel_index = 0;
  uint64_t start_cycle = 0;  // first cycle the kernel could dispatch a block
  uint64_t cycles = 0;       // from start_cycle to the retirement of its last block
  bool truncated = false;    // stopped by the cycle budget
  Occupancy occupancy;
  SmStats stats;             // counters of the SMs while they held this kernel's blocks
  MemoryStats memory;        // the memory side's counters for this kernel's traffic
};

class Gpu {
 public:
  // perfect_memory: global/local accesses take sm.perfect_memory_latency and
  // no memory side is built.
  Gpu(const GpuSpec& spec, bool perfect_memory);
  ~Gpu();

  // Simulates `jobs` (in order) to completion or until the cycle budget ends.
  // Results come in job order; kernels not reached are absent.
  std::vector<KernelResult> run(TraceSource& trace, const std::vector<KernelJob>& jobs, const GpuRunOptions& options);

  const GpuSpec& spec() const { return spec_; }
  uint32_t sm_count() const { return uint32_t(sms_.size()); }
  uint64_t cycles() const { return clock_; }  // core cycles simulated so far, launch gaps included

 private:
  // Memory-side edges up to core cycle `now`, in time order.
  void run_memory_edges(uint64_t now);

  const GpuSpec& spec_;
  std::vector<std::unique_ptr<Sm>> sms_;
  std::unique_ptr<MemorySystem> memory_;  // null with perfect memory
  ClockDomains clocks_;
  std::vector<uint32_t> cluster_order_;
  uint64_t clock_ = 0;
};

}  // namespace lockstep
