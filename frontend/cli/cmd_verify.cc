// lockstep verify TRACE [--threads 1,2,4,8] [--schedules seq,para1,para2] [--partitions ...]
// Runs the trace once per combination and compares every counter of every
// kernel with the sequential run: the determinism contract, checked.
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

struct Run {
  std::string schedule, partition;
  uint32_t threads = 1;
  SimulationReport report;
};

std::string value_text(const StatValue& v) {
  char buf[64];
  if (v.is_integer)
    std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)v.integer);
  else
    std::snprintf(buf, sizeof buf, "%.6f", v.real);
  return buf;
}

// The differing counters of `b` against `a` (kernel by kernel, then totals), at most `limit`.
std::vector<std::string> differences(const SimulationReport& a, const SimulationReport& b, size_t limit) {
  std::vector<std::string> out;
  auto compare = [&](const std::string& where, const std::vector<StatValue>& x, const std::vector<StatValue>& y) {
    for (size_t i = 0; i < std::max(x.size(), y.size()) && out.size() < limit; ++i) {
      if (i < x.size() && i < y.size() && x[i].name == y[i].name && x[i].is_integer == y[i].is_integer &&
          x[i].integer == y[i].integer && (x[i].is_integer || x[i].real == y[i].real))
        continue;
      const std::string name = i < x.size() ? x[i].name : y[i].name;
      out.push_back(where + " " + name + ": " + (i < x.size() ? value_text(x[i]) : "-") + " vs " +
                    (i < y.size() ? value_text(y[i]) : "-"));
    }
  };
  if (a.kernels.size() != b.kernels.size())
    out.push_back("kernels simulated: " + std::to_string(a.kernels.size()) + " vs " + std::to_string(b.kernels.size()));
  for (size_t k = 0; k < std::min(a.kernels.size(), b.kernels.size()); ++k)
    compare("kernel " + std::to_string(a.kernels[k].kernel_id) + " (" + a.kernels[k].name.substr(0, 40) + ")",
            kernel_stats(a, a.kernels[k]), kernel_stats(b, b.kernels[k]));
  compare("total", total_stats(a), total_stats(b));
  return out;
}

}  // namespace

int cmd_verify(const Args& args) {
  std::string input, threads = "1,2,4,8", schedules = "seq,para1,para2", partitions = "contiguous,round-robin,balanced";
  SimulationInputs inputs;
  po::options_description opts(
      "usage: lockstep verify TRACE [options]\n"
      "Runs TRACE with every combination of schedule, thread count and partition and compares every counter of\n"
      "every kernel with the sequential run; exit code 1 and the first differing counters on any difference.\noptions");
  opts.add_options()("help,h", "show this help");
  inputs.add_to(opts);
  opts.add_options()(
      "threads", po::value(&threads)->default_value(threads), "thread counts to try")(
      "schedules", po::value(&schedules)->default_value(schedules), "schedules to try (seq, para1, para2)")(
      "partitions", po::value(&partitions)->default_value(partitions), "partitions to try");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");
  const SimulationOptions base = inputs.options();
  const std::vector<uint32_t> thread_counts = parse_thread_list(threads);
  const std::vector<std::string> schedule_list = split_list(schedules), partition_list = split_list(partitions);
  for (const std::string& s : schedule_list) parse_schedule(s);
  for (const std::string& p : partition_list) parse_partition(p);

  const GpuSpec spec = inputs.spec(input);

  auto run = [&](const std::string& schedule, uint32_t n, const std::string& partition) {
    SimulationOptions o = base;
    o.schedule = schedule;
    o.threads = n;
    o.partition = partition;
    auto trace = inputs.open(input);
    return Run{schedule, partition, n, simulate(*trace, spec, o)};
  };
  std::vector<Run> runs;
  runs.push_back(run("seq", 1, "contiguous"));
  {
    // The reference again with fast-forward the other way: jumps must not change a counter.
    SimulationOptions o = base;
    o.fast_forward = !base.fast_forward;
    auto trace = inputs.open(input);
    runs.push_back(Run{"seq", o.fast_forward ? "(jumps)" : "(no jumps)", 1, simulate(*trace, spec, o)});
    const std::vector<std::string> diff = differences(runs.front().report, runs.back().report, 10);
    if (!diff.empty()) {
      std::printf("lockstep verify: seq with fast-forward %s differs from seq:\n", o.fast_forward ? "on" : "off");
      for (const std::string& d : diff) std::printf("  %s\n", d.c_str());
      return 1;
    }
  }
  for (const std::string& schedule : schedule_list)
    for (uint32_t n : thread_counts)
      for (const std::string& partition : partition_list) {
        if (schedule == "seq") continue;  // one thread, no partition: the reference run
        runs.push_back(run(schedule, n, partition));
        const std::vector<std::string> diff = differences(runs.front().report, runs.back().report, 10);
        if (!diff.empty()) {
          std::printf("lockstep verify: %s, %u thread(s), %s differs from seq:\n", schedule.c_str(), n, partition.c_str());
          for (const std::string& d : diff) std::printf("  %s\n", d.c_str());
          return 1;
        }
      }
  std::printf("lockstep verify: %zu runs on %s, every counter of every kernel identical to seq\n", runs.size(),
              spec.name.c_str());
  std::printf("  %-8s %7s  %-12s %10s %14s\n", "schedule", "threads", "partition", "wall s", "warp insts/s");
  for (const Run& r : runs) {
    uint64_t insts = 0;
    for (const KernelReport& k : r.report.kernels) insts += k.stats.warp_insts;
    std::printf("  %-8s %7u  %-12s %10.3f %14.0f\n", r.schedule.c_str(), r.threads, r.partition.c_str(),
                r.report.wall_seconds, r.report.wall_seconds > 0 ? double(insts) / r.report.wall_seconds : 0.0);
  }
  return 0;
}

}  // namespace lockstep::cli
