// lockstep verify TRACE [--models cycle,memory,abstract] [--threads 1,2,4,8] [--schedules seq,para1,para2] [--partitions ...]
// Runs the trace once per combination and compares every counter of every
// kernel with the sequential run of the same model: the determinism contract,
// checked. The cycle model runs every schedule, thread count and partition;
// a model without schedules (memory, abstract) every thread count, and the
// abstract model once more with its kernels read the other way (all twice,
// or all once when the reference read some twice).
#include <boost/program_options.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/convert/open_trace.h"
#include "configs/spec/gpu_config.h"
#include "parallel/run_models.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"

namespace po = boost::program_options;

namespace lockstep::cli {
namespace {

// The differing counters of `b` against `a` (kernel by kernel, then totals), at most `limit`.
std::vector<std::string> differences(const SimulationReport& a, const SimulationReport& b, size_t limit) {
  std::vector<std::string> out;
  auto compare = [&](const std::string& where, const std::vector<StatValue>& x, const std::vector<StatValue>& y) {
    for (size_t i = 0; i < std::max(x.size(), y.size()) && out.size() < limit; ++i) {
      if (i < x.size() && i < y.size() && x[i].name == y[i].name && x[i].is_integer == y[i].is_integer &&
          x[i].integer == y[i].integer && (x[i].is_integer || x[i].real == y[i].real))
        continue;
      const std::string name = i < x.size() ? x[i].name : y[i].name;
      out.push_back(where + " " + name + ": " + (i < x.size() ? stat_text(x[i]) : "-") + " vs " +
                    (i < y.size() ? stat_text(y[i]) : "-"));
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
  std::string input, models = "cycle", threads = "1,2,4,8", schedules = "seq,para1,para2", partitions = "contiguous,round-robin,balanced";
  SimulationInputs inputs;
  po::options_description opts(
      "usage: lockstep verify TRACE [options]\n"
      "Runs TRACE with every combination of schedule, thread count and partition and compares every counter of\n"
      "every kernel with the sequential run; exit code 1 and the first differing counters on any difference.\noptions");
  opts.add_options()("help,h", "show this help")(
      "models,model", po::value(&models)->default_value(models),
      "models to check, each against its own one-thread run (cycle, memory, abstract; also --model); the memory "
      "and abstract models run every thread count (they have no schedules or partitions), the abstract model also "
      "with its kernels read the other way (--read-twice-above)");
  inputs.add_to(opts);
  opts.add_options()(
      "threads,thread", po::value(&threads)->default_value(threads), "thread counts to try (also --thread)")(
      "schedules,schedule", po::value(&schedules)->default_value(schedules),
      "schedules to try (seq, para1, para2; also --schedule)")(
      "partitions,partition", po::value(&partitions)->default_value(partitions), "partitions to try (also --partition)");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");
  const RunOptions base = inputs.options();
  std::vector<std::string> model_list = split_list(models);
  for (const std::string& m : model_list) find_run_model(m);  // an unknown name is reported before any work
  const std::vector<uint32_t> thread_counts = parse_thread_list(threads);
  std::vector<Schedule> schedule_list;
  std::vector<Partition> partition_list;
  for (const std::string& s : split_list(schedules)) schedule_list.push_back(parse_schedule(s));
  for (const std::string& p : split_list(partitions)) partition_list.push_back(parse_partition(p));

  const GpuSpec spec = inputs.spec(input);

  size_t total_runs = 0;
  for (const std::string& m : model_list) {
    if (m != "cycle") {
      total_runs += 1 + thread_counts.size() - size_t(std::count(thread_counts.begin(), thread_counts.end(), 1u));
      if (m == "abstract") ++total_runs;  // its kernels read the other way
      continue;
    }
    total_runs += 2;  // seq, and seq with fast-forward the other way
    for (Schedule schedule : schedule_list)
      if (schedule != Schedule::kSeq) total_runs += thread_counts.size() * partition_list.size();
  }
  std::printf("lockstep verify: %s on %s, %zu runs, each compared with its model's one-thread run as it ends\n",
              input.c_str(), spec.name.c_str(), total_runs);
  // A model without schedules shows its name in the schedule column.
  std::printf("  %-8s %7s  %-12s %10s %14s  %s\n", "schedule", "threads", "partition", "wall s", "warp insts/s",
              "counters");
  std::fflush(stdout);

  std::optional<SimulationReport> reference;
  size_t done = 0;
  // Runs one combination, prints its line and, on a difference, the differing counters.
  auto run = [&](const std::string& model, Schedule schedule, uint32_t n, Partition partition, bool fast_forward,
                 const std::string& label, std::optional<uint64_t> read_twice_above = std::nullopt) {
    RunOptions o = base;
    o.model = model;
    if (read_twice_above) o.abstract_read_twice_above = *read_twice_above;
    o.engine.schedule = schedule;
    o.engine.threads = n;
    o.engine.partition = partition;
    o.engine.fast_forward = fast_forward;
    auto trace = inputs.open(input);
    SimulationReport report = simulate(*trace, spec, o);
    uint64_t insts = 0;
    for (const KernelReport& k : report.kernels) insts += k.stats.warp_insts;
    const std::vector<std::string> diff = reference ? differences(*reference, report, 10) : std::vector<std::string>{};
    std::printf("  %-8s %7u  %-12s %10.3f %14.0f  %s\n", model == "cycle" ? schedule_name(schedule) : model.c_str(), n,
                label.c_str(), report.wall_seconds, report.wall_seconds > 0 ? double(insts) / report.wall_seconds : 0.0,
                !reference ? "reference" : diff.empty() ? "identical" : "DIFFER");
    for (const std::string& d : diff) std::printf("    %s\n", d.c_str());
    std::fflush(stdout);
    ++done;
    if (!reference) reference = std::move(report);
    return diff.empty();
  };
  const bool ff = base.engine.fast_forward;
  bool same = true;
  for (const std::string& model : model_list) {
    if (!same) break;
    reference.reset();
    if (model != "cycle") {
      // No schedules or partitions: every thread count against one thread.
      same = run(model, Schedule::kSeq, 1, Partition::kContiguous, ff, "-");
      for (uint32_t n : thread_counts)
        if (same && n != 1) same = run(model, Schedule::kSeq, n, Partition::kContiguous, ff, "-");
      // The abstract model also the other way of reading its kernels: every
      // kernel twice, or (when the reference read some twice) every one once.
      if (same && model == "abstract") {
        const bool twice = reference->kernels_read_twice == 0;
        same = run(model, Schedule::kSeq, 1, Partition::kContiguous, ff, twice ? "(read twice)" : "(read once)",
                   twice ? uint64_t(0) : UINT64_MAX);
      }
      continue;
    }
    same = run(model, Schedule::kSeq, 1, Partition::kContiguous, ff, partition_name(Partition::kContiguous));
    // The reference again with fast-forward the other way: jumps must not change a counter.
    same = same && run(model, Schedule::kSeq, 1, Partition::kContiguous, !ff, ff ? "(no jumps)" : "(jumps)");
    for (Schedule schedule : schedule_list)
      for (uint32_t n : thread_counts)
        for (Partition partition : partition_list) {
          if (!same) break;
          if (schedule == Schedule::kSeq) continue;  // one thread, no partition: the reference run
          same = run(model, schedule, n, partition, ff, partition_name(partition));
        }
  }
  if (!same) {
    std::printf("lockstep verify: run %zu of %zu differs from its model's one-thread run (counters above)\n", done,
                total_runs);
    return 1;
  }
  std::printf("lockstep verify: %zu runs on %s, every counter of every kernel identical to its model's one-thread run\n",
              done, spec.name.c_str());
  return 0;
}

}  // namespace lockstep::cli
