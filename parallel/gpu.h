#pragma once
// The GPU assembly: SIMT clusters of SMs, the block dispatcher and the core
// cycle loop of the sequential schedule. Per core cycle, in order: the
// dispatcher hands at most one block to each SM that has room (SMs visited
// round robin from the one after the last that received a block), then every
// cluster ticks its SMs. SMs share nothing within a cycle, so the cluster order
// does not matter; `shuffle_seed` permutes it every cycle to prove that.
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
#include "parallel/gpu_spec.h"
#include "frontend/trace/trace_source.h"

namespace lockstep {

// A run that cannot go on: a stuck warp (watchdog) or an impossible kernel.
class SimulationError : public std::runtime_error {
 public:
  explicit SimulationError(const std::string& what) : std::runtime_error(what) {}
};

struct KernelRunOptions {
  std::optional<uint64_t> shuffle_seed;  // tick clusters in a random order each cycle
  uint64_t cycle_budget = 0;             // stop after this many cycles (0: no limit)
  // Called every `progress_every` cycles with (cycles so far, warp instructions so far).
  std::function<void(uint64_t, uint64_t)> progress;
  uint64_t progress_every = 1 << 16;
};

struct KernelResult {
  uint32_t kernel_index = 0;
  uint64_t cycles = 0;
  bool truncated = false;  // stopped by the cycle budget
  Occupancy occupancy;
  SmStats stats;           // merged in SM id order
  uint32_t sms = 0;
};

class Gpu {
 public:
  explicit Gpu(const GpuSpec& spec);

  // Simulates kernel k of `trace` to completion. `program` is extended as the
  // kernel's static table grows (text traces).
  KernelResult run_kernel(TraceSource& trace, uint32_t kernel, KernelProgram& program, const KernelRunOptions& options);

  const GpuSpec& spec() const { return spec_; }
  uint32_t sm_count() const { return uint32_t(sms_.size()); }

 private:
  const GpuSpec& spec_;
  std::vector<std::unique_ptr<Sm>> sms_;
  std::vector<uint32_t> cluster_order_;
  uint64_t clock_ = 0;  // core cycles simulated so far, across kernels
};

}  // namespace lockstep
