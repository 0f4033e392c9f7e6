// lockstep bench TRACE [--threads 1,2,4] [--schedule para1,para2] [--partition ...] [--repeat R] [--csv FILE]
// Times a trace on the sequential schedule and on every (schedule, thread
// count), repetitions interleaved in one process run; prints per
// configuration the median wall time, rates, speedup and efficiency against
// the one-thread sequential run, and the share of wall time the leader waited
// at the per-cycle handshake.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/convert/open_trace.h"
#include "parallel/config/gpu_config.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"

namespace po = boost::program_options;

namespace lockstep::cli {
namespace {

struct Config {
  std::string schedule;
  uint32_t threads = 1;
  std::vector<double> wall, wait_share;
  uint64_t warp_insts = 0, cycles = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int cmd_bench(const Args& args) {
  std::string input, threads = "1,2", schedules = "para1,para2", partition = "balanced", csv;
  uint32_t repeat = 3;
  SimulationInputs inputs;
  po::options_description opts(
      "usage: lockstep bench TRACE [options]\n"
      "Times TRACE on seq and on each schedule x thread count, repetitions interleaved; prints medians, speedup and\n"
      "efficiency against seq on one thread, and the share of time spent waiting at the per-cycle handshake.\noptions");
  opts.add_options()("help,h", "show this help");
  inputs.add_to(opts);
  opts.add_options()(
      "threads", po::value(&threads)->default_value(threads), "thread counts (the memory-side thread included)")(
      "schedule", po::value(&schedules)->default_value(schedules), "schedules (para1, para2)")(
      "partition", po::value(&partition)->default_value(partition), "partition of clusters to threads")(
      "repeat", po::value(&repeat)->default_value(repeat), "repetitions of every configuration")(
      "csv", po::value(&csv), "also write one row per configuration to this CSV file");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");
  if (repeat == 0) throw po::error("--repeat must be at least 1");
  SimulationOptions base = inputs.options();
  base.partition = partition;
  parse_partition(partition);
  const GpuSpec spec = inputs.spec(input);

  std::vector<Config> configs;
  configs.push_back(Config{"seq", 1, {}, {}, 0, 0});
  for (const std::string& s : split_list(schedules)) {
    if (parse_schedule(s) == Schedule::kSeq) continue;
    for (uint32_t n : parse_thread_list(threads))
      if (n > 1) configs.push_back(Config{s, n, {}, {}, 0, 0});
  }
  for (uint32_t r = 0; r < repeat; ++r)
    for (Config& c : configs) {
      SimulationOptions o = base;
      o.schedule = c.schedule;
      o.threads = c.threads;
      auto trace = open_trace(input);
      const SimulationReport rep = simulate(*trace, spec, o);
      c.wall.push_back(rep.wall_seconds);
      c.wait_share.push_back(handshake_wait_share(rep));
      c.warp_insts = c.cycles = 0;
      for (const KernelReport& k : rep.kernels) {
        c.warp_insts += k.stats.warp_insts;
        c.cycles += k.cycles;
      }
      std::fprintf(stderr, "\rbench: repetition %u/%u, %s on %u thread(s): %.3f s      ", r + 1, repeat,
                   c.schedule.c_str(), c.threads, rep.wall_seconds);
    }
  std::fprintf(stderr, "\n");

  const double base_wall = median(configs.front().wall);
  std::string rows = "threads,schedule,wall_s,warp_insts_per_s,cycles_per_s,speedup,efficiency,handshake_wait_share\n";
  std::printf("lockstep bench: %s on %s, %u repetition(s) each, interleaved; partition %s\n", input.c_str(),
              spec.name.c_str(), repeat, partition.c_str());
  std::printf("  %7s %-8s %10s %14s %12s %8s %10s %10s\n", "threads", "schedule", "wall s", "warp insts/s", "cycles/s",
              "speedup", "efficiency", "wait share");
  for (const Config& c : configs) {
    const double wall = median(c.wall), speedup = wall > 0 ? base_wall / wall : 0.0;
    const double wait = median(c.wait_share);
    const double ips = wall > 0 ? double(c.warp_insts) / wall : 0.0, cps = wall > 0 ? double(c.cycles) / wall : 0.0;
    std::printf("  %7u %-8s %10.3f %14.0f %12.0f %7.2fx %9.1f%% %9.1f%%\n", c.threads, c.schedule.c_str(), wall, ips,
                cps, speedup, 100.0 * speedup / c.threads, 100.0 * wait);
    char row[256];
    std::snprintf(row, sizeof row, "%u,%s,%.6f,%.1f,%.1f,%.4f,%.4f,%.4f\n", c.threads, c.schedule.c_str(), wall, ips, cps,
                  speedup, speedup / c.threads, wait);
    rows += row;
  }
  if (!csv.empty()) write_file_atomically(csv, rows);
  return 0;
}

}  // namespace lockstep::cli
