// lockstep bench TRACE [--threads 1,2,4] [--schedules para1,para2] [--partition ...] [--repeat R] [--csv FILE]
// Times a trace on the sequential schedule and on every (schedule, thread
// count), repetitions interleaved in one process run; prints per
// configuration the median wall time, rates, speedup and efficiency against
// the one-thread sequential run, and the share of wall time the leader waited
// at the per-cycle handshake. The cycle rate counts simulated cycles only;
// the cycles fast-forward jumped over are given apart, as a share. With
// --cost-split, one more profiled sequential run gives the per-cycle cost of
// every cluster and memory-side unit and of the leader's serial phases, a
// profiled 2-thread para1 run the serial phases as they cost when threaded,
// and parallel/scaling_model.h turns them into a predicted speedup for
// --predict thread counts.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/cli/progress_line.h"
#include "frontend/convert/open_trace.h"
#include "frontend/io/output_file.h"
#include "configs/spec/gpu_config.h"
#include "memsys/memory_system.h"
#include "parallel/scaling_model.h"
#include "parallel/semaphore.h"
#include "parallel/worker_team.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"

namespace po = boost::program_options;

namespace lockstep::cli {
namespace {

struct Config {
  Schedule schedule = Schedule::kSeq;
  uint32_t threads = 1;
  std::vector<double> wall, wait_share;
  uint64_t warp_insts = 0;
  uint64_t simulated_cycles = 0, skipped_cycles = 0;  // core cycles simulated and jumped over (fast-forward)
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// One profiled sequential run: the per-cycle cost split and what it predicts.
void print_cost_split(const std::string& input, const SimulationInputs& inputs, const GpuSpec& spec, RunOptions o,
                      const std::vector<uint32_t>& predict, double measured_seq_wall) {
  o.engine.schedule = Schedule::kSeq;
  o.engine.threads = 1;
  o.engine.profile = true;
  auto trace = inputs.open(input);
  const SimulationReport rep = simulate(*trace, spec, o);
  const EngineReport& e = rep.engine;
  const double cycles = double(e.serial_cycles + e.parallel_cycles);
  if (cycles == 0) return;
  auto us = [&](double ns) { return ns / cycles / 1000.0; };
  CycleCostSplit split;
  double sm = 0, sm_largest = 0, parts = 0, part_largest = 0;
  for (uint64_t ns : e.cluster_ns) {
    split.unit_ns.push_back(double(ns) / cycles);
    sm += double(ns);
    sm_largest = std::max(sm_largest, double(ns));
  }
  for (size_t u = 0; u < e.unit_ns.size(); ++u) {
    split.unit_ns.push_back(double(e.unit_ns[u]) / cycles);
    if (u >= MemorySystem::kFirstPartitionUnit) {
      parts += double(e.unit_ns[u]);
      part_largest = std::max(part_largest, double(e.unit_ns[u]));
    }
  }
  // The serial phases also in a threaded run, where the leader reads what
  // other cores wrote; the prediction takes the larger.
  RunOptions threaded = o;
  threaded.engine.schedule = Schedule::kPara1;
  threaded.engine.threads = 2;
  threaded.engine.partition = Partition::kBalanced;
  auto trace2 = inputs.open(input);
  const EngineReport e2 = simulate(*trace2, spec, threaded).engine;
  const double cycles2 = double(e2.serial_cycles + e2.parallel_cycles);
  const double serial_seq = double(e.serial_ns) / cycles, serial_threaded = cycles2 > 0 ? double(e2.serial_ns) / cycles2 : 0.0;
  split.serial_ns = std::max(serial_seq, serial_threaded);
  split.round_trip_ns = measure_round_trip_ns(200000);
  const double total = serial_seq + sm / cycles + (e.unit_ns.empty() ? 0.0 : (double(e.unit_ns[0]) + double(e.unit_ns[1]) + parts) / cycles);
  auto share = [&](double ns) { return total > 0 ? 100.0 * ns / cycles / total : 0.0; };
  std::printf("per-cycle cost split: one profiled seq run, %.0f simulated cycles (%llu skipped), %.3f s wall (%.3f s "
              "unprofiled)\n", cycles, (unsigned long long)e.skipped_cycles, rep.wall_seconds, measured_seq_wall);
  std::printf("  %-36s %9s %7s %7s %9s\n", "part", "us/cycle", "share", "pieces", "largest");
  std::printf("  %-36s %9.2f %6.1f%% %7zu %9.2f\n", "SMs (clusters)", us(sm), share(sm), e.cluster_ns.size(), us(sm_largest));
  if (!e.unit_ns.empty()) {
    const double req = double(e.unit_ns[MemorySystem::kRequestNetUnit]), rep_net = double(e.unit_ns[MemorySystem::kReplyNetUnit]);
    std::printf("  %-36s %9.2f %6.1f%% %7d %9.2f\n", "request crossbar", us(req), share(req), 1, us(req));
    std::printf("  %-36s %9.2f %6.1f%% %7d %9.2f\n", "reply crossbar", us(rep_net), share(rep_net), 1, us(rep_net));
    std::printf("  %-36s %9.2f %6.1f%% %7zu %9.2f\n", "memory partitions (L2 slices + DRAM)", us(parts), share(parts),
                e.unit_ns.size() - MemorySystem::kFirstPartitionUnit, us(part_largest));
  }
  std::printf("  %-36s %9.2f %6.1f%%\n", "leader serial (phases A and C)", serial_seq / 1000.0,
              share(serial_seq * cycles));
  std::printf("  %-36s %9.2f          (profiled para1 run, 2 threads)\n", "leader serial, threaded run",
              serial_threaded / 1000.0);
  std::printf("  %-36s %9.2f          (measured: 2 threads, empty shares)\n", "handshake round trip per tree level",
              split.round_trip_ns / 1000.0);
  const double one = predicted_cycle_ns(split, 1);
  std::printf("predicted (para1 balanced: the larger serial time, pieces longest first to the least loaded thread,\n"
              "a %u-ary handshake tree; no cache effects in the pieces, no cycle-to-cycle variation, so an upper bound):\n",
              WorkerTeam<SpinFutexSemaphore>::kFanOut);
  std::printf("  %7s %10s %8s %7s\n", "threads", "us/cycle", "speedup", "levels");
  for (uint32_t t : predict) {
    const double c = predicted_cycle_ns(split, t);
    std::printf("  %7u %10.2f %7.2fx %7u\n", t, c / 1000.0, one / c, handshake_depth(t, WorkerTeam<SpinFutexSemaphore>::kFanOut));
  }
}

}  // namespace

int cmd_bench(const Args& args) {
  std::string input, threads = "1,2", schedules = "para1,para2", partition = "balanced", csv, predict = "2,4,16,64";
  uint32_t repeat = 3;
  bool cost_split = false;
  SimulationInputs inputs;
  po::options_description opts(
      "usage: lockstep bench TRACE [options]\n"
      "Times TRACE on seq and on each schedule x thread count, repetitions interleaved; prints medians, speedup and\n"
      "efficiency against seq on one thread, and the share of time spent waiting at the per-cycle handshake.\noptions");
  opts.add_options()("help,h", "show this help");
  inputs.add_to(opts);
  opts.add_options()(
      "threads,thread", po::value(&threads)->default_value(threads),
      "thread counts (the memory-side thread included; also --thread)")(
      "schedules,schedule", po::value(&schedules)->default_value(schedules),
      "schedules (para1, para2; seq is always the baseline; also --schedule)")(
      "partition,partitions", po::value(&partition)->default_value(partition),
      "partition of clusters to threads (one; also --partitions)")(
      "repeat", whole_number("repeat", &repeat, 1, 1000000), "repetitions of every configuration")(
      "csv", po::value(&csv), "also write one row per configuration to this CSV file ('-': standard output)")(
      "cost-split", po::bool_switch(&cost_split),
      "also profile one seq run and one 2-thread para1 run: per-cycle cost of the SMs, the memory side and the serial "
      "phases, and the speedup it predicts")(
      "predict", po::value(&predict)->default_value(predict), "thread counts for the --cost-split prediction");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");
  RunOptions base = inputs.options();
  base.engine.partition = parse_partition(partition);
  if (!csv.empty()) resolve_output(csv);  // an unwritable output is reported before the timing
  const GpuSpec spec = inputs.spec(input);

  std::vector<Config> configs;
  configs.push_back(Config{Schedule::kSeq, 1, {}, {}, 0, 0, 0});
  for (const std::string& name : split_list(schedules)) {
    const Schedule s = parse_schedule(name);
    if (s == Schedule::kSeq) {
      std::fprintf(stderr, "lockstep bench: note: dropping schedule seq from --schedules: it is always run, on one "
                           "thread, as the baseline\n");
      continue;
    }
    for (uint32_t n : parse_thread_list(threads))
      if (n > 1)
        configs.push_back(Config{s, n, {}, {}, 0, 0, 0});
      else
        std::fprintf(stderr, "lockstep bench: note: dropping %s on 1 thread: a threaded schedule needs 2 or more; "
                             "seq on 1 thread is the baseline\n", name.c_str());
  }
  ProgressLine progress;
  for (uint32_t r = 0; r < repeat; ++r)
    for (Config& c : configs) {
      RunOptions o = base;
      o.engine.schedule = c.schedule;
      o.engine.threads = c.threads;
      auto trace = inputs.open(input);
      const SimulationReport rep = simulate(*trace, spec, o);
      c.wall.push_back(rep.wall_seconds);
      c.wait_share.push_back(handshake_wait_share(rep));
      c.warp_insts = 0;
      for (const KernelReport& k : rep.kernels) c.warp_insts += k.stats.warp_insts;
      c.simulated_cycles = rep.engine.parallel_cycles + rep.engine.serial_cycles;
      c.skipped_cycles = rep.engine.skipped_cycles;
      char line[160];
      std::snprintf(line, sizeof line, "bench: repetition %u/%u, %s on %u thread(s): %.3f s", r + 1, repeat,
                    schedule_name(c.schedule), c.threads, rep.wall_seconds);
      progress.update(line);
    }
  progress.finish();

  const double base_wall = median(configs.front().wall);
  std::string rows =
      "threads,schedule,wall_s,warp_insts_per_s,simulated_cycles_per_s,speedup,efficiency,handshake_wait_share,"
      "skipped_cycle_share\n";
  std::printf("lockstep bench: %s on %s, %u repetition(s) each, interleaved; partition %s\n", input.c_str(),
              spec.name.c_str(), repeat, partition.c_str());
  std::printf("  %7s %-8s %10s %14s %14s %8s %8s %10s %10s\n", "threads", "schedule", "wall s", "warp insts/s",
              "sim cycles/s", "skipped", "speedup", "efficiency", "wait share");
  for (const Config& c : configs) {
    const double wall = median(c.wall), speedup = wall > 0 ? base_wall / wall : 0.0;
    const double wait = median(c.wait_share);
    const double ips = wall > 0 ? double(c.warp_insts) / wall : 0.0;
    const double cps = wall > 0 ? double(c.simulated_cycles) / wall : 0.0;
    const uint64_t all_cycles = c.simulated_cycles + c.skipped_cycles;
    const double skipped = all_cycles ? double(c.skipped_cycles) / double(all_cycles) : 0.0;
    std::printf("  %7u %-8s %10.3f %14.0f %14.0f %7.1f%% %7.2fx %9.1f%% %9.1f%%\n", c.threads, schedule_name(c.schedule), wall,
                ips, cps, 100.0 * skipped, speedup, 100.0 * speedup / c.threads, 100.0 * wait);
    char row[256];
    std::snprintf(row, sizeof row, "%u,%s,%.6f,%.1f,%.1f,%.4f,%.4f,%.4f,%.4f\n", c.threads, schedule_name(c.schedule), wall, ips,
                  cps, speedup, speedup / c.threads, wait, skipped);
    rows += row;
  }
  if (!csv.empty()) write_output_file(csv, rows);
  if (cost_split) print_cost_split(input, inputs, spec, base, parse_thread_list(predict, "predict"), base_wall);
  return 0;
}

}  // namespace lockstep::cli
