#include "parallel/abstract_model_run.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/abstract/abstract_sm.h"
#include "core/abstract/characterisation.h"
#include "core/abstract/kernel_encoder.h"
#include "core/abstract/memory_levels.h"
#include "parallel/run_plan.h"

namespace lockstep {
namespace {

// What the abstract model measures: cycles, instructions, issues per unit
// class, occupancy; no memory, stall or cache counters.
std::vector<std::string> abstract_model_counters(const GpuSpec& spec) {
  std::vector<std::string> names = {
      "gpc__cycles_elapsed.max", "launch__kernels", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
      "sm__ctas_launched.sum", "sm__cycles_active.sum", "sm__warps_active.sum", "smsp__inst_executed_op_memory.sum",
      "ipc", "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__maximum_warps_per_active_cycle_pct",
      "launch__shared_mem_config_size", "lockstep__blocks_per_sm_limit", "lockstep__gpu_cycles", "lockstep__memcpys",
      "lockstep__memcpy_bytes"};
  for (const UnitSpec& u : spec.sm.units) names.push_back("lockstep__issued." + u.name);
  return names;
}

}  // namespace

SimulationReport run_abstract(TraceSource& trace, const GpuSpec& spec, const RunOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  if (options.max_cycles) throw std::invalid_argument("--max-cycles: not available with --model abstract");
  const TraceManifest& m = trace.manifest();
  RunPlan plan = plan_run(trace, spec, options);
  SimulationReport report = start_report(spec, options, plan, "abstract");
  report.schedule = "abstract";
  report.partition = "by SM";
  report.measured = abstract_model_counters(spec);

  const bool perfect = options.memory_model == "perfect";
  MemoryLatencies latencies;
  if (perfect) latencies.l1_hit = latencies.l2_hit = latencies.dram = spec.sm.perfect_memory_latency;
  else latencies = memory_latencies(spec);
  // Characterised with the shortest latency a global access can get (a longer one delays its readers).
  const uint32_t characterised_latency = std::min(spec.sm.perfect_memory_latency, latencies.l1_hit);
  std::unique_ptr<CacheHitLevels> levels;
  if (!perfect) levels = std::make_unique<CacheHitLevels>(spec);
  KernelEncoder encoder(spec.sm, spec.sms, latencies, levels.get());
  tbb::task_arena arena(int(std::max(1u, options.engine.threads)));

  uint64_t clock = 0;
  for (const KernelJob& job : plan.jobs) {
    if (options.memcpy_warms_l2 && !perfect)
      for (const MemcpyHtoD& copy : job.copies_before) levels->copy_to_device(copy.address, copy.bytes);
    KernelProgram& program = *job.program;
    const KernelInfo& info = m.kernels[job.kernel_index];
    AbstractKernel kernel;
    kernel.sm = &spec.sm;
    kernel.program = &program;
    kernel.latencies = latencies;
    kernel.block_interval = spec.launch.block_interval_cycles;
    kernel.sm_block_interval = spec.launch.sm_block_interval_cycles;
    kernel.launch.kernel_index = job.kernel_index;
    kernel.launch.program = &program;
    kernel.launch.warps_per_block = info.warps_per_block();
    kernel.launch.occupancy = launch_occupancy(spec, info);
    const uint32_t l1_kb = kernel.launch.occupancy.l1_kb;
    const std::optional<uint64_t> length = trace.indexed_warp_insts(job.kernel_index);
    const bool read_twice = options.abstract_read_twice_above == 0 || (length && *length > options.abstract_read_twice_above);
    KernelWorkload work;
    if (read_twice) {
      work = encoder.scan(trace, job.kernel_index, program, l1_kb);
    } else {
      work = encoder.encode(trace, job.kernel_index, program, l1_kb);
    }
    if (!perfect) share_bandwidth(kernel.latencies, work.traffic);
    const auto characterise_start = Clock::now();
    const KernelCharacterisation timing = characterise(work.blocks, program, spec.sm, characterised_latency);
    report.precharacterisation_seconds += std::chrono::duration<double>(Clock::now() - characterise_start).count();
    kernel.blocks = &work.blocks;
    kernel.timing = &timing;
    kernel.costs = &work.costs;

    // The SMs of a kernel are independent: any thread, any order.
    std::vector<AbstractSmResult> sms(spec.sms);
    if (!read_twice) {
      arena.execute([&] {
        tbb::parallel_for(uint32_t(0), spec.sms, [&](uint32_t s) {
          if (work.sms[s].blocks.empty()) return;
          AbstractSm sm(kernel);
          sms[s] = sm.run(work.sms[s]);
        });
      });
    } else {
      // Read again a few rounds of blocks at a time; each SM runs until it
      // needs a block not read yet, and frees what it has timed.
      encoder.start(trace, job.kernel_index, l1_kb, work);
      ++report.kernels_read_twice;
      std::vector<std::unique_ptr<AbstractSm>> timers(spec.sms);
      std::vector<uint8_t> done(spec.sms, 0);
      for (bool more = true; more;) {
        more = encoder.read_more(program, work, options.abstract_read_ahead);
        ++report.read_twice_steps;
        arena.execute([&] {
          tbb::parallel_for(uint32_t(0), spec.sms, [&](uint32_t s) {
            SmWorkload& w = work.sms[s];
            if (done[s] || w.blocks.empty()) return;
            if (!timers[s]) timers[s] = std::make_unique<AbstractSm>(kernel);
            if (timers[s]->advance(w, !more)) {
              sms[s] = timers[s]->result();
              timers[s].reset();
              done[s] = 1;
              w = SmWorkload();
            } else {
              w.release_before_block(timers[s]->first_block_needed());
            }
          });
        });
      }
    }
    KernelReport k;
    k.kernel_index = job.kernel_index;
    k.kernel_id = info.kernel_id;
    k.name = info.name;
    k.occupancy = kernel.launch.occupancy;
    k.stats.unit_issues.assign(spec.sm.units.size(), 0);
    for (const AbstractSmResult& r : sms) {  // in SM id order
      k.cycles = std::max(k.cycles, r.cycles);
      if (!r.stats.unit_issues.empty()) k.stats += r.stats;
    }
    // The kernel-level costs, as the cycle model's dispatcher counts them:
    // the wait before the first block and the drain after the last one.
    if (k.cycles > 0) k.cycles += uint64_t(spec.launch.kernel_start_cycles) + spec.launch.kernel_drain_cycles;
    if (options.per_unit_stats) {
      for (AbstractSmResult& r : sms) {
        if (r.stats.unit_issues.size() < spec.sm.units.size()) r.stats.unit_issues.resize(spec.sm.units.size());
        k.sm_stats.push_back(std::move(r.stats));
      }
    }
    if (!report.kernels.empty()) clock += spec.kernel_launch_latency;
    clock += k.cycles;
    report.kernels.push_back(std::move(k));
  }
  report.gpu_cycles = clock;
  report.partial_trace = trace.partial_trace();
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

}  // namespace lockstep
