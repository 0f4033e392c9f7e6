// The cache-functional memory model's runner (parallel/run_models.h): the
// selected kernels one after another on memsys/functional/functional_gpu.h,
// their memcpys through the copy engine first; the report carries the
// counters the model measures and nothing timed.
#include <chrono>
#include <stdexcept>

#include "frontend/trace/trace_error.h"
#include "memsys/functional/functional_gpu.h"
#include "parallel/run_models.h"
#include "parallel/run_plan.h"

namespace lockstep {
namespace {

// What the memory model measures: instruction and request counts, the L1's,
// L2's and DRAM's sector counters, their hit rates, and the launch's
// occupancy figures (none of them timed).
const std::vector<std::string>& memory_model_counters() {
  static const std::vector<std::string> names = {
      "launch__kernels",
      "smsp__inst_executed.sum",
      "smsp__thread_inst_executed.sum",
      "sm__ctas_launched.sum",
      "smsp__inst_executed_op_memory.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local.sum",
      "lockstep__l1_miss_sectors",
      "lockstep__l1_fill_sectors",
      "lockstep__const_requests",
      "lockstep__atomic_requests",
      "sm__maximum_warps_per_active_cycle_pct",
      "lts__t_sectors_op_read.sum",
      "lts__t_sectors_op_read_lookup_hit.sum",
      "lts__t_sectors_op_write.sum",
      "lts__t_sectors_op_write_lookup_hit.sum",
      "lts__t_sectors_op_atom.sum",
      "lockstep__l2_writeback_sectors",
      "lockstep__l2_fill_sectors",
      "dram__sectors_read.sum",
      "dram__sectors_write.sum",
      "l1tex__t_sector_hit_rate.pct",
      "lts__t_sector_op_read_hit_rate.pct",
      "launch__shared_mem_config_size",
      "lockstep__blocks_per_sm_limit",
      "lockstep__memcpys",
      "lockstep__memcpy_bytes",
  };
  return names;
}

}  // namespace

SimulationReport run_memory(TraceSource& trace, const GpuSpec& spec, const RunOptions& options) {
  if (options.max_cycles)
    throw std::invalid_argument("--max-cycles: the memory model has no cycles (it runs every kernel to its end)");
  if (options.memory_model != "cycle")
    throw std::invalid_argument("--perfect-memory applies to the cycle model only (the memory model is the memory)");
  const auto start = std::chrono::steady_clock::now();
  const TraceManifest& m = trace.manifest();
  RunPlan plan = plan_run(trace, spec, options);
  SimulationReport report = start_report(spec, options, plan, "memory");
  report.measured = memory_model_counters();
  report.schedule = "";
  report.partition = "";
  FunctionalGpu gpu(spec, options.engine.threads, options.per_unit_stats,
                    options.memory_steps_per_chunk ? options.memory_steps_per_chunk : FunctionalGpu::kStepsPerChunk);
  std::vector<KernelResult> results;
  for (const KernelJob& job : plan.jobs) {
    try {
      if (options.memcpy_warms_l2)
        for (const MemcpyHtoD& copy : job.copies_before) gpu.copy_to_device(copy.address, copy.bytes);
      const Occupancy occupancy = launch_occupancy(spec, m.kernels.at(job.kernel_index));
      const uint32_t wave = spec.sms * occupancy.blocks_per_sm;
      std::unique_ptr<BlockCursor> blocks = trace.open_blocks_ahead(job.kernel_index, wave, BlockParts::kFirstSegment);
      if (!blocks) blocks = trace.open_blocks(job.kernel_index);
      FunctionalKernelResult f =
          gpu.run_kernel(*job.program, trace.static_table(job.kernel_index), *blocks, occupancy);
      // A later segment that could not be read (BlockSegments): its warps ended early.
      if (blocks->segments() && blocks->segments()->failed()) throw TraceError(blocks->segments()->failure());
      KernelResult r;
      r.kernel_index = job.kernel_index;
      r.complete = true;
      r.occupancy = occupancy;
      r.stats = std::move(f.stats);
      r.memory = f.memory;
      r.sm_stats = std::move(f.sm_stats);
      r.memory_units = std::move(f.memory_units);
      results.push_back(std::move(r));
    } catch (const std::exception& e) {
      if (options.on_error) {
        report.partial_trace = trace.partial_trace();
        add_kernel_results(report, m, spec, options, plan.jobs, results, {job.kernel_index}, "not started (error)");
        report.error = e.what();
        report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        options.on_error(report);
      }
      throw;
    }
  }
  report.partial_trace = trace.partial_trace();
  add_kernel_results(report, m, spec, options, plan.jobs, results, {}, "");
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace lockstep
