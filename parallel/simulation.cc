#include "parallel/simulation.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>

#include "core/kernel_program.h"
#include "configs/spec/config_dir.h"
#include "frontend/isa/isa_def.h"
#include "parallel/gpu.h"
#include "parallel/run_models.h"

namespace lockstep {

std::vector<uint32_t> parse_kernel_list(const std::string& text) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    try {
      size_t used = 0;
      if (item.empty()) throw std::invalid_argument("empty item");
      if (dash == std::string::npos) {
        out.push_back(uint32_t(std::stoul(item, &used)));
        if (used != item.size()) throw std::invalid_argument(item);
      } else {
        const uint32_t a = uint32_t(std::stoul(item.substr(0, dash), &used));
        if (used != dash) throw std::invalid_argument(item);
        const uint32_t b = uint32_t(std::stoul(item.substr(dash + 1), &used));
        if (used != item.size() - dash - 1 || b < a) throw std::invalid_argument(item);
        for (uint32_t k = a; k <= b; ++k) out.push_back(k);
      }
    } catch (const std::exception&) {
      throw std::invalid_argument("--kernels: bad kernel list '" + text + "' (expected e.g. 1,3-5)");
    }
    pos = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

SimulationReport simulate(TraceSource& trace, const GpuSpec& spec, const RunOptions& options) {
  return find_run_model(options.model).run(trace, spec, options);
}

SimulationReport report_header(const GpuSpec& spec, const RunOptions& options) {
  if (options.engine.threads == 0) throw std::invalid_argument("--threads must be at least 1");
  SimulationReport report;
  report.model = options.model;
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
  report.max_cycles = options.max_cycles;
  report.memcpy_warms_l2 = options.memcpy_warms_l2;
  report.cache_control = options.cache_control;
  return report;
}

std::vector<uint32_t> selected_kernels(const TraceManifest& m, const RunOptions& options) {
  std::vector<uint32_t> selected;
  for (const TraceCommand& c : m.commands) {
    if (c.kind != TraceCommand::Kind::kKernel) continue;
    const uint32_t id = m.kernels[c.kernel_index].kernel_id;
    if (options.kernel_ids.empty() || std::binary_search(options.kernel_ids.begin(), options.kernel_ids.end(), id))
      selected.push_back(c.kernel_index);
  }
  if (!options.kernel_ids.empty() && selected.size() != options.kernel_ids.size())
    throw std::invalid_argument("--kernels names kernel ids the trace does not have");
  return selected;
}

std::vector<std::unique_ptr<KernelProgram>> kernel_programs(const TraceManifest& m, const std::vector<uint32_t>& selected,
                                                            const GpuSpec& spec) {
  // The programs keep their ISA def (one per architecture) alive.
  std::map<uint32_t, std::shared_ptr<const IsaDef>> isa_by_version;
  std::vector<std::unique_ptr<KernelProgram>> programs;
  for (uint32_t k : selected) {
    const KernelInfo& info = m.kernels[k];
    auto it = isa_by_version.find(info.binary_version);
    if (it == isa_by_version.end()) {
      auto def = std::make_shared<IsaDef>(IsaDef::for_binary_version(info.binary_version, default_config_dir()));
      for (const std::string& extra : spec.isa_extra) def->add_extra(extra);
      it = isa_by_version.emplace(info.binary_version, std::move(def)).first;
    }
    std::shared_ptr<const IsaDef> isa = it->second;
    programs.push_back(std::make_unique<KernelProgram>(
        spec.sm,
        [isa](const std::string& opcode, const std::string& where) {
          const IsaDef::Entry e = isa->resolve(opcode, where);
          return std::make_pair(e.unit, e.kind);
        },
        "kernel " + std::to_string(info.kernel_id) + " (" + info.source_file + ")"));
  }
  return programs;
}

SimulationReport run_cycle(TraceSource& trace, const GpuSpec& spec, const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const TraceManifest& m = trace.manifest();
  SimulationReport report = report_header(spec, options);
  const std::vector<uint32_t> selected = selected_kernels(m, options);
  // Resolve every selected kernel's program against its architecture's ISA def.
  std::vector<std::unique_ptr<KernelProgram>> programs = kernel_programs(m, selected, spec);
  std::vector<KernelJob> jobs;
  for (size_t i = 0; i < selected.size(); ++i) jobs.push_back(KernelJob{selected[i], programs[i].get(), {}});
  // Each copy runs through the copy engine when the next simulated kernel launches.
  std::vector<MemcpyHtoD> copies;
  size_t next_job = 0;
  for (const TraceCommand& c : m.commands) {
    if (c.kind == TraceCommand::Kind::kMemcpy) {
      ++report.memcpys;
      report.memcpy_bytes += c.memcpy.bytes;
      copies.push_back(c.memcpy);
    } else if (next_job < jobs.size() && jobs[next_job].kernel_index == c.kernel_index) {
      jobs[next_job++].copies_before = std::move(copies);
      copies.clear();
    }
  }

  Gpu gpu(spec, options.sm_model, options.memory_model);
  // The results into the report; selected kernels without one are listed
  // with `not_started`, those cut by an error with "cut by the error".
  auto add_results = [&](std::vector<KernelResult>& results, const std::vector<uint32_t>& cut,
                         const std::string& not_started) {
    report.engine = gpu.engine_report();
    report.partial_trace = trace.partial_trace();
    report.threads = report.engine.threads;
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
  };
  std::vector<KernelResult> results;
  try {
    results = gpu.run(trace, jobs, options);
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
