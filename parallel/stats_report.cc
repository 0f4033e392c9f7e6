#include "parallel/stats_report.h"

#include <algorithm>
#include <cinttypes>
#include <map>

#include "frontend/io/output_file.h"
#include "frontend/trace/version.h"

namespace lockstep {
namespace {

std::vector<StatValue> derive(const SimulationReport& r, const SmStats& s, const MemoryStats& m, uint64_t cycles,
                              double theoretical_occupancy, uint64_t kernels) {
  std::vector<StatValue> out;
  auto integer = [&](const std::string& n, uint64_t v) { out.push_back({n, true, v, 0}); };
  auto real = [&](const std::string& n, double v) { out.push_back({n, false, 0, v}); };
  integer("gpc__cycles_elapsed.max", cycles);
  integer("launch__kernels", kernels);
  s.for_each(r.unit_names, integer);
  real("ipc", cycles ? double(s.warp_insts) / double(cycles) : 0.0);
  real("sm__warps_active.avg.pct_of_peak_sustained_active",
       s.cycles_active ? 100.0 * double(s.warps_active_sum) / (double(s.cycles_active) * r.max_warps_per_sm) : 0.0);
  if (theoretical_occupancy >= 0) real("sm__maximum_warps_per_active_cycle_pct", 100.0 * theoretical_occupancy);
  m.for_each(integer);
  auto pct = [](uint64_t part, uint64_t whole) { return whole ? 100.0 * double(part) / double(whole) : 0.0; };
  real("l1tex__t_sector_hit_rate.pct", pct(s.l1.global_ld_hit_sectors, s.global_ld_sectors));
  real("lts__t_sector_op_read_hit_rate.pct", pct(m.l2.read_hits, m.l2.read_sectors));
  // DRAM: data-bus busy share of the elapsed DRAM cycles of all channels, and bytes per second.
  const double seconds = r.clocks.core_mhz > 0 ? double(cycles) / (r.clocks.core_mhz * 1e6) : 0.0;
  const double dram_cycles = seconds * r.clocks.dram_mhz * 1e6 * r.dram_channels;
  real("dram__throughput.avg.pct_of_peak_sustained_elapsed",
       dram_cycles > 0 ? 100.0 * double(m.dram.data_bus_cycles) / dram_cycles : 0.0);
  real("dram__bytes.sum.per_second",
       seconds > 0 ? double(m.dram.read_sectors + m.dram.write_sectors) * 32.0 / seconds : 0.0);
  return out;
}

// Whether the report's model measures counter `name` (SimulationReport::measured).
bool measures(const SimulationReport& r, const std::string& name) {
  return r.measured.empty() || std::find(r.measured.begin(), r.measured.end(), name) != r.measured.end();
}

// Drops the counters the report's model does not measure.
std::vector<StatValue> only_measured(const SimulationReport& r, std::vector<StatValue> stats) {
  if (r.measured.empty()) return stats;
  std::erase_if(stats, [&](const StatValue& v) { return !measures(r, v.name); });
  return stats;
}

void json_string(std::string& out, const std::string& s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

// One unit's raw counters under its hierarchical name.
struct UnitStats {
  std::string name;
  std::vector<StatValue> counters;
};

// Per-unit counters: the SMs by id as "cluster<c>.sm<id>" (c = id /
// gpu.sms_per_cluster), then the memory side's instances in the memory model's order.
std::vector<UnitStats> unit_stats(const SimulationReport& r, const std::vector<SmStats>& sms,
                                  const MemoryInstanceStats& memory) {
  std::vector<UnitStats> out;
  const uint32_t per_cluster = std::max(r.sms_per_cluster, 1u);
  for (uint32_t id = 0; id < sms.size(); ++id) {
    UnitStats& u = out.emplace_back();
    u.name = "cluster" + std::to_string(id / per_cluster) + ".sm" + std::to_string(id);
    sms[id].for_each(r.unit_names, [&](const std::string& n, uint64_t v) {
      if (measures(r, n)) u.counters.push_back({n, true, v, 0});
    });
  }
  memory.for_each([&](const std::string& instance, const std::string& n, uint64_t v) {
    if (out.empty() || out.back().name != instance) out.push_back({instance, {}});
    if (measures(r, n)) out.back().counters.push_back({n, true, v, 0});
  });
  return out;
}

// The run's per-unit counters: each unit's summed over the kernels.
std::vector<UnitStats> total_unit_stats(const SimulationReport& r) {
  std::vector<SmStats> sms;
  MemoryInstanceStats memory;
  for (const KernelReport& k : r.kernels) {
    if (sms.size() < k.sm_stats.size()) sms.resize(k.sm_stats.size());
    for (size_t i = 0; i < k.sm_stats.size(); ++i) sms[i] += k.sm_stats[i];
    memory += k.memory_units;
  }
  return unit_stats(r, sms, memory);
}

void json_stat_members(std::string& out, const std::vector<StatValue>& stats) {
  for (size_t i = 0; i < stats.size(); ++i) {
    if (i) out += ", ";
    json_string(out, stats[i].name);
    out += ": " + stat_text(stats[i]);
  }
}

// {"unit": {counters}, ...}, one unit a line.
void json_units(std::string& out, const std::vector<UnitStats>& units) {
  out += "{";
  for (size_t i = 0; i < units.size(); ++i) {
    out += i ? ",\n    " : "\n    ";
    json_string(out, units[i].name);
    out += ": {";
    json_stat_members(out, units[i].counters);
    out += "}";
  }
  out += "}";
}

// The counters as an object; with `units`, a last member "units" holds them.
void json_stats(std::string& out, const std::vector<StatValue>& stats, const std::vector<UnitStats>* units = nullptr) {
  out += "{";
  json_stat_members(out, stats);
  if (units) {
    out += ",\n   \"units\": ";
    json_units(out, *units);
  }
  out += "}";
}

void json_producer(std::string& out, const RunProvenance& p) {
  out += "\"producer\": {\"tool\": \"lockstep\", \"version\": ";
  json_string(out, kVersion);
  out += ", \"model\": ";
  json_string(out, p.model);
  out += ", \"trace\": ";
  json_string(out, p.trace);
  out += ", \"gpu_config\": ";
  json_string(out, p.gpu_config);
  out += ", \"sets\": [";
  for (size_t i = 0; i < p.sets.size(); ++i) {
    if (i) out += ", ";
    json_string(out, p.sets[i]);
  }
  out += "], \"command_line\": ";
  json_string(out, p.command_line);
  out += "},\n ";
}

// The run section's peak resident memory, when the command that ran it said (lockstep run).
void append_peak_rss(std::string& out, const SimulationReport& r) {
  if (r.peak_rss_mb <= 0) return;
  char field[48];
  std::snprintf(field, sizeof field, ", \"peak_rss_mb\": %.1f", r.peak_rss_mb);
  out += field;
}

}  // namespace

std::string stat_text(const StatValue& v) {
  char buf[64];
  if (v.is_integer)
    std::snprintf(buf, sizeof buf, "%" PRIu64, v.integer);
  else
    std::snprintf(buf, sizeof buf, "%.6f", v.real);
  return buf;
}

std::vector<StatValue> kernel_stats(const SimulationReport& r, const KernelReport& k) {
  std::vector<StatValue> out = derive(r, k.stats, k.memory, k.cycles, k.occupancy.occupancy(), 1);
  out.push_back({"launch__shared_mem_config_size", true, uint64_t(k.occupancy.carveout_kb) * 1024, 0});
  out.push_back({"lockstep__blocks_per_sm_limit", true, k.occupancy.blocks_per_sm, 0});
  return only_measured(r, std::move(out));
}

std::vector<StatValue> total_stats(const SimulationReport& r) {
  SmStats sum;
  MemoryStats memory;
  uint64_t cycles = 0;
  for (const KernelReport& k : r.kernels) {
    sum += k.stats;
    memory += k.memory;
    cycles += k.cycles;
  }
  if (sum.unit_issues.size() < r.unit_names.size()) sum.unit_issues.resize(r.unit_names.size());
  std::vector<StatValue> out = derive(r, sum, memory, cycles, -1, r.kernels.size());
  out.push_back({"lockstep__gpu_cycles", true, r.gpu_cycles, 0});
  out.push_back({"lockstep__memcpys", true, r.memcpys, 0});
  out.push_back({"lockstep__memcpy_bytes", true, r.memcpy_bytes, 0});
  return only_measured(r, std::move(out));
}

std::string stats_json(const SimulationReport& r, const RunProvenance& provenance) {
  std::string out = "{";
  json_producer(out, provenance);
  // Another model than the cycle model says so at the top level (the cycle
  // model's files keep their layout; "producer" names the model in every file).
  if (r.model != "cycle") {
    out += "\"model\": ";
    json_string(out, r.model);
    out += ", ";
  }
  out += "\"gpu\": ";
  json_string(out, r.gpu);
  // A run an error stopped: what it had done before, marked incomplete.
  if (!r.error.empty()) {
    out += ", \"incomplete\": true, \"error\": ";
    json_string(out, r.error);
  }
  out += std::string(", \"memcpy_warm\": ") + (r.memcpy_warms_l2 ? "true" : "false");
  out += std::string(", \"cache_control\": \"") + cache_control_name(r.cache_control) + "\"";
  out += ", \"kernels\": [";
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const KernelReport& k = r.kernels[i];
    if (i) out += ",";
    out += "\n  {\"id\": " + std::to_string(k.kernel_id) + ", \"name\": ";
    json_string(out, k.name);
    out += ", \"truncated\": " + std::string(k.truncated ? "true" : "false") + ", \"stats\": ";
    json_stats(out, kernel_stats(r, k));
    if (r.per_unit) {
      out += ",\n   \"units\": ";
      json_units(out, unit_stats(r, k.sm_stats, k.memory_units));
    }
    out += "}";
  }
  out += "],\n \"partial_trace\": [";
  for (size_t i = 0; i < r.partial_trace.size(); ++i) {
    if (i) out += ", ";
    json_string(out, r.partial_trace[i]);
  }
  out += "],\n \"not_simulated\": [";
  for (size_t i = 0; i < r.not_simulated.size(); ++i) {
    const KernelNotSimulated& k = r.not_simulated[i];
    out += std::string(i ? ", " : "") + "{\"id\": " + std::to_string(k.kernel_id) + ", \"name\": ";
    json_string(out, k.name);
    out += ", \"reason\": ";
    json_string(out, k.reason);
    out += "}";
  }
  out += "],\n \"total\": ";
  if (r.per_unit) {
    const std::vector<UnitStats> units = total_unit_stats(r);
    json_stats(out, total_stats(r), &units);
  } else {
    json_stats(out, total_stats(r));
  }
  uint64_t insts = 0, cycles = 0;
  for (const KernelReport& k : r.kernels) {
    insts += k.stats.warp_insts;
    cycles += k.cycles;
  }
  char run[768];
  if (!measures(r, "gpc__cycles_elapsed.max")) {
    // A model without timing: no cycle figures, no engine.
    std::snprintf(run, sizeof run,
                  ",\n \"run\": {\"wall_seconds\": %.6f, \"warp_insts_per_second\": %.1f, \"threads\": %u, "
                  "\"truncated\": %s",
                  r.wall_seconds, r.wall_seconds > 0 ? double(insts) / r.wall_seconds : 0.0, r.threads,
                  r.truncated ? "true" : "false");
    out += run;
    append_peak_rss(out, r);
    return out + "}}\n";
  }
  std::snprintf(run, sizeof run,
                ",\n \"run\": {\"wall_seconds\": %.6f, \"warp_insts_per_second\": %.1f, \"cycles_per_second\": %.1f, "
                "\"threads\": %u, \"schedule\": \"%s\", \"partition\": \"%s\", \"parallel_cycles\": %llu, "
                "\"serial_cycles\": %llu, \"skipped_cycles\": %llu, \"memory_threads\": %u, \"rebalances\": %llu, "
                "\"helped_pieces\": %llu, \"handshake_wait_share\": %.4f, \"truncated\": %s",
                r.wall_seconds, r.wall_seconds > 0 ? double(insts) / r.wall_seconds : 0.0,
                r.wall_seconds > 0 ? double(cycles) / r.wall_seconds : 0.0, r.threads, r.schedule.c_str(),
                r.partition.c_str(), (unsigned long long)r.engine.parallel_cycles,
                (unsigned long long)r.engine.serial_cycles, (unsigned long long)r.engine.skipped_cycles,
                r.engine.memory_threads, (unsigned long long)r.engine.rebalances,
                (unsigned long long)r.engine.helped_pieces, handshake_wait_share(r),
                r.truncated ? "true" : "false");
  out += run;
  append_peak_rss(out, r);
  if (r.model == "abstract") {
    std::snprintf(run, sizeof run,
                  ", \"precharacterisation_seconds\": %.6f, \"kernels_read_twice\": %llu, \"read_twice_steps\": %llu",
                  r.precharacterisation_seconds, (unsigned long long)r.kernels_read_twice,
                  (unsigned long long)r.read_twice_steps);
    out += run;
  }
  out += "}}\n";
  return out;
}

double handshake_wait_share(const SimulationReport& r) {
  return r.wall_seconds > 0 ? double(r.engine.handshake_wait_ns) / 1e9 / r.wall_seconds : 0.0;
}

namespace {

// How a run that did not simulate every selected kernel to its end stopped:
// kernels finished, cut, not started.
void print_stop(std::FILE* out, const SimulationReport& r) {
  if (!r.truncated && r.error.empty()) return;
  size_t finished = 0;
  std::string cut;
  for (const KernelReport& k : r.kernels) {
    if (!k.truncated) ++finished;
    else cut += (cut.empty() ? "" : ", ") + std::to_string(k.kernel_id);
  }
  std::string not_started;
  size_t not_started_count = 0;
  for (const KernelNotSimulated& k : r.not_simulated) {
    if (k.cut) {
      cut += (cut.empty() ? "" : ", ") + std::to_string(k.kernel_id);
      continue;
    }
    ++not_started_count;
    if (not_started_count <= 10) not_started += (not_started.empty() ? "" : ", ") + std::to_string(k.kernel_id);
  }
  if (not_started_count > 10) not_started += ", ...";
  if (!r.error.empty())
    std::fprintf(out, "  INCOMPLETE: stopped by an error (below): %zu kernel(s) finished", finished);
  else
    std::fprintf(out, "  stopped by --max-cycles %" PRIu64 ": %zu kernel(s) finished", r.max_cycles, finished);
  std::fprintf(out, ", %s, %zu not started%s%s%s\n", cut.empty() ? "none cut" : ("kernel " + cut + " cut").c_str(),
               not_started_count, not_started.empty() ? "" : " (kernel ", not_started.c_str(),
               not_started.empty() ? "" : ")");
}

}  // namespace

namespace {

// A kernel's name as the summary prints it: at most 48 characters.
std::string summary_name(const std::string& name) { return name.size() > 48 ? name.substr(0, 45) + "..." : name; }

// The run's total counters by name, for the summary's memory line (0 for one the report lacks).
class SummaryTotals {
 public:
  explicit SummaryTotals(const SimulationReport& r) {
    for (StatValue& v : total_stats(r)) by_name_.emplace(v.name, std::move(v));
  }
  double real(const std::string& name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? 0.0 : it->second.real;
  }
  uint64_t integer(const std::string& name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? 0 : it->second.integer;
  }

 private:
  std::map<std::string, StatValue> by_name_;
};

// The summary of a model without timing: instructions and memory counters.
void print_untimed_summary(std::FILE* out, const SimulationReport& r) {
  std::fprintf(out, "lockstep run on %s (%u SMs), model %s (no timing: no cycles, IPC or stalls)\n", r.gpu.c_str(),
               r.sm_count, r.model.c_str());
  uint64_t insts = 0;
  for (const KernelReport& k : r.kernels) {
    const std::string name = summary_name(k.name);
    std::fprintf(out, "  kernel %-3u %-48s %12" PRIu64 " warp insts  (%u blocks/SM, %s)\n", k.kernel_id, name.c_str(),
                 k.stats.warp_insts, k.occupancy.blocks_per_sm, k.occupancy.limited_by);
    insts += k.stats.warp_insts;
  }
  std::fprintf(out, "  total: %zu kernels, %" PRIu64 " warp instructions\n", r.kernels.size(), insts);
  print_stop(out, r);
  const SummaryTotals t(r);
  std::fprintf(out,
               "  memory: L1 global-load sectors %" PRIu64 " (hit %.1f%%), L2 read sectors %" PRIu64
               " (hit %.1f%%), L2 write sectors %" PRIu64 ", DRAM sectors read %" PRIu64 ", written %" PRIu64 "\n",
               t.integer("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), t.real("l1tex__t_sector_hit_rate.pct"),
               t.integer("lts__t_sectors_op_read.sum"), t.real("lts__t_sector_op_read_hit_rate.pct"),
               t.integer("lts__t_sectors_op_write.sum"), t.integer("dram__sectors_read.sum"),
               t.integer("dram__sectors_write.sum"));
  std::fprintf(out, "  run: %.3f s wall, %.0f warp insts/s, %u thread(s)\n", r.wall_seconds,
               r.wall_seconds > 0 ? double(insts) / r.wall_seconds : 0.0, r.threads);
}

}  // namespace

void print_summary(std::FILE* out, const SimulationReport& r) {
  if (!measures(r, "gpc__cycles_elapsed.max")) {
    print_untimed_summary(out, r);
    return;
  }
  std::fprintf(out, "lockstep run on %s (%u SMs)\n", r.gpu.c_str(), r.sm_count);
  uint64_t insts = 0, cycles = 0;
  for (const KernelReport& k : r.kernels) {
    const double ipc = k.cycles ? double(k.stats.warp_insts) / double(k.cycles) : 0.0;
    const double occ = k.stats.cycles_active ? 100.0 * double(k.stats.warps_active_sum) /
                                                   (double(k.stats.cycles_active) * r.max_warps_per_sm)
                                             : 0.0;
    const std::string name = summary_name(k.name);
    std::fprintf(out,
                 "  kernel %-3u %-48s %10" PRIu64 " cycles %12" PRIu64 " warp insts  IPC %7.2f  occupancy %5.1f%% (%u blocks/SM, %s)%s\n",
                 k.kernel_id, name.c_str(), k.cycles, k.stats.warp_insts, ipc, occ, k.occupancy.blocks_per_sm,
                 k.occupancy.limited_by, k.truncated ? "  [truncated]" : "");
    insts += k.stats.warp_insts;
    cycles += k.cycles;
  }
  std::fprintf(out, "  total: %zu kernels, %" PRIu64 " cycles, %" PRIu64 " warp instructions, IPC %.2f\n", r.kernels.size(),
               cycles, insts, cycles ? double(insts) / double(cycles) : 0.0);
  print_stop(out, r);
  if (r.model == "abstract") {
    std::fprintf(out, "  model: abstract (pre-characterised basic blocks; memory: %s); pre-characterisation %.3f s\n",
                 r.perfect_memory ? "perfect (sm.perfect_memory_latency)" : "fixed per-level latencies, hit levels from capacity-bounded L1D and L2 tag arrays, shared L2 and DRAM bandwidth",
                 r.precharacterisation_seconds);
  } else if (!r.perfect_memory) {
    const SummaryTotals t(r);
    std::fprintf(out,
                 "  memory: L1 global-load sectors %" PRIu64 " (hit %.1f%%), L2 read sectors %" PRIu64
                 " (hit %.1f%%), DRAM %.1f GB/s (%.1f%% of peak)\n",
                 t.integer("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), t.real("l1tex__t_sector_hit_rate.pct"),
                 t.integer("lts__t_sectors_op_read.sum"), t.real("lts__t_sector_op_read_hit_rate.pct"),
                 t.real("dram__bytes.sum.per_second") / 1e9, t.real("dram__throughput.avg.pct_of_peak_sustained_elapsed"));
  } else {
    std::fprintf(out, "  memory: perfect (sm.perfect_memory_latency)\n");
  }
  // The cycle rate counts the cycles simulated; the skipped ones are reported
  // apart below. The abstract model steps no cycles (it jumps from event to
  // event): its rate is the kernels' cycles it timed.
  const bool timed = r.model == "abstract";
  const uint64_t simulated = timed ? cycles : r.engine.parallel_cycles + r.engine.serial_cycles;
  std::fprintf(out, "  run: %.3f s wall, %.0f warp insts/s, %.0f %s cycles/s, %u thread(s), schedule %s",
               r.wall_seconds, r.wall_seconds > 0 ? double(insts) / r.wall_seconds : 0.0,
               r.wall_seconds > 0 ? double(simulated) / r.wall_seconds : 0.0,
               timed ? "timed" : "simulated", r.threads, r.schedule.c_str());
  if (r.engine.threads > 1)
    std::fprintf(out, " (%s), %.1f%% of the time waiting at the per-cycle handshake; %llu cycles run by the team, %llu by the leader alone",
                 r.partition.c_str(), 100.0 * handshake_wait_share(r), (unsigned long long)r.engine.parallel_cycles,
                 (unsigned long long)r.engine.serial_cycles);
  if (r.engine.skipped_cycles)
    std::fprintf(out, "; %llu cycles skipped (fast-forward)", (unsigned long long)r.engine.skipped_cycles);
  std::fprintf(out, "\n");
}

void write_stats_json(const SimulationReport& r, const RunProvenance& provenance, const std::string& path) {
  write_output_file(path, stats_json(r, provenance));
}

}  // namespace lockstep
