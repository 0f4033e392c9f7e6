#pragma once
// What every model's run starts from: the selected kernels with their
// programs resolved against the ISA defs, the memcpys before each, and the
// report's header. And what every model's run ends with: its per-kernel
// results turned into the report's kernels (parallel/run_models.h).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "configs/spec/gpu_spec.h"
#include "core/kernel_program.h"
#include "frontend/isa/isa_def.h"
#include "frontend/trace/trace_source.h"
#include "parallel/kernel_job.h"
#include "parallel/run_options.h"
#include "parallel/simulation.h"

namespace lockstep {

struct RunPlan {
  std::map<uint32_t, IsaDef> isa_by_version;             // the programs resolve through these
  std::vector<std::unique_ptr<KernelProgram>> programs;  // one per job
  std::vector<KernelJob> jobs;                           // the selected kernels, in trace order
  uint64_t memcpys = 0;
  uint64_t memcpy_bytes = 0;
};

// The selected kernels (RunOptions::kernel_ids) and the copies before each.
// Throws std::invalid_argument for ids the trace lacks, TraceError for an
// unknown ISA version.
RunPlan plan_run(TraceSource& trace, const GpuSpec& spec, const RunOptions& options);

// The occupancy of a kernel's launch on `spec`; throws SimulationError
// "kernel N (NAME) cannot run on GPU: WHY" when a block cannot fit.
Occupancy launch_occupancy(const GpuSpec& spec, const KernelInfo& info);

// A report with the run's header filled in (GPU, model, options, the plan's memcpys).
SimulationReport start_report(const GpuSpec& spec, const RunOptions& options, const RunPlan& plan,
                              const std::string& model);

// The results into the report's kernels, in job order; the jobs without a
// result are listed as not simulated: those in `cut` with "cut by the
// error", the others with `not_started`. Warns (RunOptions::warn) of warps
// that continue after a full-mask EXIT.
void add_kernel_results(SimulationReport& report, const TraceManifest& manifest, const GpuSpec& spec,
                        const RunOptions& options, const std::vector<KernelJob>& jobs,
                        std::vector<KernelResult>& results, const std::vector<uint32_t>& cut,
                        const std::string& not_started);

}  // namespace lockstep
