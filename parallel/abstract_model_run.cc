#include "parallel/abstract_model_run.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/abstract/abstract_sm.h"
#include "core/abstract/characterisation.h"
#include "core/abstract/kernel_encoder.h"
#include "core/abstract/memory_levels.h"

namespace lockstep {

SimulationReport run_abstract(TraceSource& trace, const GpuSpec& spec, const RunOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  if (options.max_cycles) throw std::invalid_argument("--max-cycles: not available with --model abstract");
  const TraceManifest& m = trace.manifest();
  SimulationReport report = report_header(spec, options);
  report.schedule = "abstract";
  report.partition = "by SM";
  const std::vector<uint32_t> selected = selected_kernels(m, options);
  std::vector<std::unique_ptr<KernelProgram>> programs = kernel_programs(m, selected, spec);

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

  size_t next = 0;
  uint64_t clock = 0;
  for (const TraceCommand& c : m.commands) {
    if (c.kind == TraceCommand::Kind::kMemcpy) {
      ++report.memcpys;
      report.memcpy_bytes += c.memcpy.bytes;
      if (options.memcpy_warms_l2 && !perfect) levels->copy_to_device(c.memcpy.address, c.memcpy.bytes);
      continue;
    }
    if (next >= selected.size() || selected[next] != c.kernel_index) continue;
    KernelProgram& program = *programs[next++];
    const KernelInfo& info = m.kernels[c.kernel_index];
    AbstractKernel kernel;
    kernel.sm = &spec.sm;
    kernel.program = &program;
    kernel.latencies = latencies;
    kernel.launch.kernel_index = c.kernel_index;
    kernel.launch.program = &program;
    kernel.launch.warps_per_block = info.warps_per_block();
    try {
      kernel.launch.occupancy =
          compute_occupancy(spec.sm, KernelShape{info.threads_per_block(), info.nregs, info.shmem_bytes});
    } catch (const std::invalid_argument& e) {
      throw SimulationError("kernel " + std::to_string(info.kernel_id) + " (" + info.name.substr(0, 60) +
                            ") cannot run on " + spec.name + ": " + e.what());
    }
    const KernelWorkload work = encoder.encode(trace, c.kernel_index, program, kernel.launch.occupancy.l1_kb);
    if (!perfect) share_bandwidth(kernel.latencies, work.traffic);
    const auto characterise_start = Clock::now();
    const KernelCharacterisation timing = characterise(work.blocks, program, spec.sm, characterised_latency);
    report.precharacterisation_seconds += std::chrono::duration<double>(Clock::now() - characterise_start).count();
    kernel.blocks = &work.blocks;
    kernel.timing = &timing;

    // The SMs of a kernel are independent: any thread, any order.
    std::vector<AbstractSmResult> sms(spec.sms);
    arena.execute([&] {
      tbb::parallel_for(uint32_t(0), spec.sms, [&](uint32_t s) {
        if (work.sms[s].blocks.empty()) return;
        AbstractSm sm(kernel);
        sms[s] = sm.run(work.sms[s]);
      });
    });
    KernelReport k;
    k.kernel_index = c.kernel_index;
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
