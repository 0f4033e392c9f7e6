#pragma once
// Runs a whole trace on a GPU: memcpys and kernels in trace order, the chosen
// kernels simulated one after another, per-kernel and total statistics.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/occupancy.h"
#include "core/sm_stats.h"
#include "memsys/memory_stats.h"
#include "frontend/trace/trace_source.h"
#include "frontend/trace/warnings.h"
#include "parallel/gpu.h"
#include "configs/spec/gpu_spec.h"

namespace lockstep {

struct SimulationReport;

struct SimulationOptions {
  std::vector<uint32_t> kernel_ids;        // simulate only these kernel ids (empty: all)
  bool perfect_memory = false;           // fixed-latency memory instead of L1D/L2/DRAM
  uint64_t max_cycles = 0;                 // stop the run after this many cycles (0: none)
  bool memcpy_warms_l2 = true;             // MemcpyHtoD fills the L2 (false: --no-memcpy-warm; see GpuRunOptions)
  std::optional<uint64_t> shuffle_seed;    // --cluster-order shuffle:SEED
  uint32_t threads = 1;
  std::string schedule = "seq";            // seq, para1, para2
  std::string partition = "contiguous";    // contiguous, round-robin, balanced
  std::string handshake = "spin";          // spin (SpinFutexSemaphore) or std (std::counting_semaphore)
  bool fast_forward = true;                // jump over cycles in which nothing can change (same results)
  bool pin_threads = false;                // pin simulation thread i to CPU i
  bool profile = false;                    // time every cluster and memory-side unit (EngineReport)
  uint32_t rebalance_period = 4096;        // balanced partition: cycles between reassignments
  bool unlatched_coupling_for_tests = false;  // see GpuRunOptions; tests only
  SerialFallback serial_fallback;          // see GpuRunOptions; tests only change it
  bool drop_retirements_for_tests = false;    // see GpuRunOptions; tests only
  WarningHandler warn = print_warning;    // once per kernel: warps that continue after a full-mask EXIT
  // Progress: (kernel ordinal, kernels to run, cycles, warp instructions) — for stderr.
  std::function<void(uint32_t, uint32_t, uint64_t, uint64_t)> progress;
  // When an error stops the run (a corrupt chunk, the watchdog): called,
  // before the error propagates, with the report of the kernels completed
  // before it (SimulationReport::error set), so that no finished result is lost.
  std::function<void(const SimulationReport&)> on_error;
};

struct KernelReport {
  uint32_t kernel_index = 0;
  uint32_t kernel_id = 0;
  std::string name;
  uint64_t cycles = 0;
  bool truncated = false;
  Occupancy occupancy;
  SmStats stats;
  MemoryStats memory;  // all zero with perfect memory
};

// A selected kernel without a complete result, and why.
struct KernelNotSimulated {
  uint32_t kernel_id = 0;
  std::string name;
  std::string reason;  // "not started (--max-cycles)", "cut by the error", "not started (error)"
  bool cut = false;    // launched, then stopped by the error before its end
};

struct SimulationReport {
  std::string gpu;
  std::vector<std::string> unit_names;
  uint32_t sm_count = 0;
  uint32_t max_warps_per_sm = 0;
  std::vector<KernelReport> kernels;
  uint64_t memcpys = 0;
  uint64_t memcpy_bytes = 0;
  bool perfect_memory = false;
  ClockSpec clocks;            // for rates derived from cycle counts
  uint32_t dram_channels = 0;
  uint64_t gpu_cycles = 0;  // the whole run's span, launch gaps and overlaps included
  bool truncated = false;
  std::vector<std::string> partial_trace;  // what the trace lacked (read with --allow-partial), one line each
  uint64_t max_cycles = 0;      // the cycle budget the run had (0: none)
  bool memcpy_warms_l2 = true;  // MemcpyHtoD filled the L2
  // Selected kernels in `kernels` only if cut (truncated), else listed here.
  std::vector<KernelNotSimulated> not_simulated;
  std::string error;  // the error that stopped the run; the report then holds what was done before it
  // Run figures (not deterministic).
  double wall_seconds = 0;
  uint32_t threads = 1;  // simulation threads actually used
  std::string schedule;
  std::string partition;
  EngineReport engine;
};

// Throws TraceError (bad trace, unknown opcode), SimulationError (watchdog,
// kernel that cannot run) or std::invalid_argument (bad options).
SimulationReport simulate(TraceSource& trace, const GpuSpec& spec, const SimulationOptions& options);

// "1,3-5" -> {1,3,4,5}; throws std::invalid_argument on bad syntax.
std::vector<uint32_t> parse_kernel_list(const std::string& text);

}  // namespace lockstep
