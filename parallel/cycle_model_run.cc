// The cycle model's runner (parallel/run_models.h): the GPU assembly of
// parallel/gpu.h, cycle by cycle, over the selected kernels.
#include <algorithm>
#include <chrono>

#include "parallel/gpu.h"
#include "parallel/run_models.h"
#include "parallel/run_plan.h"

namespace lockstep {

SimulationReport run_cycle(TraceSource& trace, const GpuSpec& spec, const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const TraceManifest& m = trace.manifest();
  RunPlan plan = plan_run(trace, spec, options);
  SimulationReport report = start_report(spec, options, plan, "cycle");
  Gpu gpu(spec, options.sm_model, options.memory_model);
  // The results into the report; selected kernels without one are listed
  // with `not_started`, those cut by an error with "cut by the error".
  auto add_results = [&](std::vector<KernelResult>& results, const std::vector<uint32_t>& cut,
                         const std::string& not_started) {
    report.engine = gpu.engine_report();
    report.partial_trace = trace.partial_trace();
    report.threads = report.engine.threads;
    add_kernel_results(report, m, spec, options, plan.jobs, results, cut, not_started);
  };
  std::vector<KernelResult> results;
  try {
    results = gpu.run(trace, plan.jobs, options);
  } catch (const std::exception& e) {
    if (options.on_error) {
      std::vector<KernelResult> done;
      std::vector<uint32_t> cut;
      for (KernelResult& r : gpu.results_before_error()) {
        if (!r.complete) {
          cut.push_back(r.kernel_index);
          continue;
        }
        report.gpu_cycles = std::max(report.gpu_cycles, r.start_cycle + r.cycles);
        done.push_back(std::move(r));
      }
      add_results(done, cut, "not started (error)");
      report.error = e.what();
      report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      options.on_error(report);
    }
    throw;
  }
  report.gpu_cycles = gpu.cycles();
  add_results(results, {}, "not started (--max-cycles)");
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace lockstep
