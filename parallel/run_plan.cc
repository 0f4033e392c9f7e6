#include "parallel/run_plan.h"

#include <algorithm>
#include <stdexcept>

#include "configs/spec/config_dir.h"
#include "parallel/simulation_error.h"

namespace lockstep {

RunPlan plan_run(TraceSource& trace, const GpuSpec& spec, const RunOptions& options) {
  const TraceManifest& m = trace.manifest();
  RunPlan plan;
  std::vector<uint32_t> selected;
  for (const TraceCommand& c : m.commands) {
    if (c.kind != TraceCommand::Kind::kKernel) continue;
    const uint32_t id = m.kernels[c.kernel_index].kernel_id;
    if (options.kernel_ids.empty() || std::binary_search(options.kernel_ids.begin(), options.kernel_ids.end(), id))
      selected.push_back(c.kernel_index);
  }
  if (!options.kernel_ids.empty() && selected.size() != options.kernel_ids.size())
    throw std::invalid_argument("--kernels names kernel ids the trace does not have");

  // Resolve every selected kernel's program against its architecture's ISA def.
  for (uint32_t k : selected) {
    const KernelInfo& info = m.kernels[k];
    auto it = plan.isa_by_version.find(info.binary_version);
    if (it == plan.isa_by_version.end()) {
      IsaDef def = IsaDef::for_binary_version(info.binary_version, default_config_dir());
      for (const std::string& extra : spec.isa_extra) def.add_extra(extra);
      it = plan.isa_by_version.emplace(info.binary_version, std::move(def)).first;
    }
    const IsaDef* isa = &it->second;
    plan.programs.push_back(std::make_unique<KernelProgram>(
        spec.sm,
        [isa](const std::string& opcode, const std::string& where) {
          const IsaDef::Entry e = isa->resolve(opcode, where);
          return std::make_pair(e.unit, e.kind);
        },
        "kernel " + std::to_string(info.kernel_id) + " (" + info.source_file + ")"));
    plan.jobs.push_back(KernelJob{k, plan.programs.back().get(), {}});
  }
  // Each copy runs through the copy engine when the next simulated kernel launches.
  std::vector<MemcpyHtoD> copies;
  size_t next_job = 0;
  for (const TraceCommand& c : m.commands) {
    if (c.kind == TraceCommand::Kind::kMemcpy) {
      ++plan.memcpys;
      plan.memcpy_bytes += c.memcpy.bytes;
      copies.push_back(c.memcpy);
    } else if (next_job < plan.jobs.size() && plan.jobs[next_job].kernel_index == c.kernel_index) {
      plan.jobs[next_job++].copies_before = std::move(copies);
      copies.clear();
    }
  }
  return plan;
}

Occupancy launch_occupancy(const GpuSpec& spec, const KernelInfo& info) {
  try {
    return compute_occupancy(spec.sm, KernelShape{info.threads_per_block(), info.nregs, info.shmem_bytes});
  } catch (const std::invalid_argument& e) {
    throw SimulationError("kernel " + std::to_string(info.kernel_id) + " (" + info.name.substr(0, 60) +
                          ") cannot run on " + spec.name + ": " + e.what());
  }
}

SimulationReport start_report(const GpuSpec& spec, const RunOptions& options, const RunPlan& plan,
                              const std::string& model) {
  SimulationReport report;
  report.model = model;
  report.gpu = spec.name;
  report.sm_count = spec.sms;
  report.max_warps_per_sm = spec.sm.max_warps;
  for (const UnitSpec& u : spec.sm.units) report.unit_names.push_back(u.name);
  report.threads = options.engine.threads;
  report.perfect_memory = options.memory_model == "perfect";
  report.per_unit = options.per_unit_stats;
  report.sms_per_cluster = spec.sms_per_cluster;
  report.clocks = spec.clocks;
  report.dram_channels = spec.memory.dram.channels;
  report.schedule = schedule_name(options.engine.schedule);
  report.partition = partition_name(options.engine.partition);
  report.memcpys = plan.memcpys;
  report.memcpy_bytes = plan.memcpy_bytes;
  report.max_cycles = options.max_cycles;
  report.memcpy_warms_l2 = options.memcpy_warms_l2;
  report.cache_control = options.cache_control;
  return report;
}

void add_kernel_results(SimulationReport& report, const TraceManifest& m, const GpuSpec& spec,
                        const RunOptions& options, const std::vector<KernelJob>& jobs,
                        std::vector<KernelResult>& results, const std::vector<uint32_t>& cut,
                        const std::string& not_started) {
  for (KernelResult& r : results) {
    const KernelInfo& info = m.kernels[r.kernel_index];
    KernelReport k;
    k.kernel_index = r.kernel_index;
    k.kernel_id = info.kernel_id;
    k.name = info.name;
    k.cycles = r.cycles;
    k.truncated = r.truncated;
    k.occupancy = r.occupancy;
    k.stats = std::move(r.stats);
    k.memory = r.memory;
    k.sm_stats = std::move(r.sm_stats);
    k.memory_units = std::move(r.memory_units);
    if (k.stats.unit_issues.size() < spec.sm.units.size()) k.stats.unit_issues.resize(spec.sm.units.size());
    for (SmStats& sm : k.sm_stats)
      if (sm.unit_issues.size() < spec.sm.units.size()) sm.unit_issues.resize(spec.sm.units.size());
    report.truncated |= r.truncated;
    if (k.stats.exit_then_more && options.warn)
      options.warn("kernel " + std::to_string(info.kernel_id) + " (" + info.source_file + "): " +
                   std::to_string(k.stats.exit_then_more) +
                   " warp(s) have instructions after an EXIT with a full mask; they were simulated as traced");
    report.kernels.push_back(std::move(k));
  }
  for (const KernelJob& job : jobs) {
    const uint32_t k = job.kernel_index;
    if (std::any_of(report.kernels.begin(), report.kernels.end(), [k](const KernelReport& r) { return r.kernel_index == k; }))
      continue;
    const bool was_cut = std::find(cut.begin(), cut.end(), k) != cut.end();
    report.not_simulated.push_back(KernelNotSimulated{m.kernels[k].kernel_id, m.kernels[k].name,
                                                      was_cut ? "cut by the error" : not_started, was_cut});
  }
  report.truncated |= !report.not_simulated.empty();
}

}  // namespace lockstep
