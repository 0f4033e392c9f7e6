#pragma once
// Runs a whole trace on a GPU: memcpys and kernels in trace order, the chosen
// kernels simulated one after another, per-kernel and total statistics.
#include <cstdint>
#include <string>
#include <vector>

#include "core/occupancy.h"
#include "core/sm_stats.h"
#include "memsys/memory_stats.h"
#include "frontend/trace/trace_source.h"
#include "parallel/engine_report.h"
#include "configs/spec/gpu_spec.h"
#include "parallel/run_options.h"
#include "parallel/simulation_error.h"

namespace lockstep {

struct KernelReport {
  uint32_t kernel_index = 0;
  uint32_t kernel_id = 0;
  std::string name;
  uint64_t cycles = 0;
  bool truncated = false;
  Occupancy occupancy;
  SmStats stats;
  MemoryStats memory;  // all zero with perfect memory
  // With RunOptions::per_unit_stats only (else empty): `stats` per SM by id,
  // and `memory` per memory-side block instance (none with perfect memory).
  std::vector<SmStats> sm_stats;
  MemoryInstanceStats memory_units;
};

// A selected kernel without a complete result, and why.
struct KernelNotSimulated {
  uint32_t kernel_id = 0;
  std::string name;
  std::string reason;  // "not started (--max-cycles)", "cut by the error", "not started (error)"
  bool cut = false;    // launched, then stopped by the error before its end
};

struct SimulationReport {
  std::string model = "cycle";  // the model that made it (parallel/run_models.h)
  // The counters the model measures, by name, derived figures included
  // (stats_report.h prints only these); empty: every counter (the cycle model).
  std::vector<std::string> measured;
  std::string gpu;
  std::vector<std::string> unit_names;
  uint32_t sm_count = 0;
  uint32_t max_warps_per_sm = 0;
  std::vector<KernelReport> kernels;
  uint64_t memcpys = 0;
  uint64_t memcpy_bytes = 0;
  bool perfect_memory = false;
  bool per_unit = false;         // the kernels carry per-unit statistics (RunOptions::per_unit_stats)
  uint32_t sms_per_cluster = 1;  // for the SMs' per-unit names
  ClockSpec clocks;            // for rates derived from cycle counts
  uint32_t dram_channels = 0;
  uint64_t gpu_cycles = 0;  // the whole run's span, launch gaps and overlaps included
  bool truncated = false;
  std::vector<std::string> partial_trace;  // what the trace lacked (read with --allow-partial), one line each
  uint64_t max_cycles = 0;      // the cycle budget the run had (0: none)
  bool memcpy_warms_l2 = true;  // MemcpyHtoD filled the L2
  CacheControl cache_control = CacheControl::kNone;  // the caches each kernel started from (--cache-control)
  double precharacterisation_seconds = 0;  // abstract model: wall time of the pre-characterisation
  // Abstract model: kernels read twice and timed as read (RunOptions::
  // abstract_read_twice_above), and the steps in which they were read the second time.
  uint64_t kernels_read_twice = 0, read_twice_steps = 0;
  // Selected kernels in `kernels` only if cut (truncated), else listed here.
  std::vector<KernelNotSimulated> not_simulated;
  std::string error;  // the error that stopped the run; the report then holds what was done before it
  // Run figures (not deterministic).
  double wall_seconds = 0;
  double peak_rss_mb = 0;  // the process's peak resident memory, when the command that ran it says (run)
  uint32_t threads = 1;  // simulation threads actually used
  std::string schedule;
  std::string partition;
  EngineReport engine;
};

// Runs the model RunOptions::model names (parallel/run_models.h).
// Throws TraceError (bad trace, unknown opcode), SimulationError (watchdog,
// kernel that cannot run) or std::invalid_argument (bad options, unknown model).
SimulationReport simulate(TraceSource& trace, const GpuSpec& spec, const RunOptions& options);

// "1,3-5" -> {1,3,4,5}; throws std::invalid_argument on bad syntax.
std::vector<uint32_t> parse_kernel_list(const std::string& text);

}  // namespace lockstep
