// lockstep run TRACE [--gpu NAME | --config FILE] [--set k=v]... [options]
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/convert/open_trace.h"
#include "parallel/config/gpu_config.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"

namespace po = boost::program_options;

namespace lockstep::cli {
namespace {

std::optional<uint64_t> parse_cluster_order(const std::string& text) {
  if (text == "natural") return std::nullopt;
  if (text.rfind("shuffle:", 0) == 0) {
    size_t used = 0;
    const std::string seed = text.substr(8);
    try {
      const uint64_t v = std::stoull(seed, &used);
      if (used == seed.size()) return v;
    } catch (const std::exception&) {
    }
  }
  throw po::error("--cluster-order: expected 'natural' or 'shuffle:SEED', got '" + text + "'");
}

}  // namespace

int cmd_run(const Args& args) {
  std::string input, gpu, config_file, kernels, stats_json, schedule, cluster_order = "natural";
  std::vector<std::string> sets;
  SimulationOptions options;
  bool perfect = false, quiet = false, no_fast_forward = false, no_memcpy_warm = false;
  po::options_description opts(
      "usage: lockstep run TRACE [options]\n"
      "TRACE: a .lst file or an Accel-Sim trace directory / kernelslist.g (read while streaming)\noptions");
  opts.add_options()("help,h", "show this help")(
      "gpu", po::value(&gpu), "GPU config by name (configs/gpus/NAME.cfg); default: the trace's architecture")(
      "config", po::value(&config_file), "GPU config file")(
      "set", po::value(&sets)->composing(), "override a config key: --set sm.max_warps=48 (repeatable)")(
      "kernels", po::value(&kernels), "simulate only these kernel ids, e.g. 1,3-5 (memcpys still apply)")(
      "stats-json", po::value(&stats_json), "write statistics as JSON to this file")(
      "perfect-memory", po::bool_switch(&perfect), "no L1D/L2/DRAM: every global/local access takes sm.perfect_memory_latency")(
      "threads", whole_number("threads", &options.threads, 1, kMaxThreads),
      "simulation threads, the memory-side thread included (up to 1024, also more than the cores)")(
      "schedule", po::value(&schedule),
      "cycle schedule (default: seq on one thread, para1 with --threads N > 1): seq (one thread), para1 (clusters "
      "over every thread; the memory side on the leader, or "
      "anywhere with --partition balanced), para2 (the memory side on threads of its own: threads / 4, at least 1; "
      "balanced: sized from measured time)")(
      "handshake", po::value(&options.handshake)->default_value("spin"),
      "per-cycle semaphores: spin (spin, then futex; measured faster) or std (std::counting_semaphore)")(
      "partition", po::value(&options.partition)->default_value("contiguous"),
      "clusters to threads: contiguous, round-robin, balanced (clusters and memory-side units by measured time)")(
      "pin", po::bool_switch(&options.pin_threads), "pin simulation thread i to CPU i (optional; same results)")(
      "no-fast-forward", po::bool_switch(&no_fast_forward),
      "simulate every cycle, also those in which nothing can change (results are the same)")(
      "max-cycles", whole_number("max-cycles", &options.max_cycles, 0, UINT64_MAX),
      "stop after this many core cycles (0: none)")(
      "no-memcpy-warm", po::bool_switch(&no_memcpy_warm),
      "start with cold caches: MemcpyHtoD commands do not leave the copied bytes in the L2 (Accel-Sim's "
      "-gpgpu_perf_sim_memcpy 0)")(
      "cluster-order", po::value(&cluster_order)->default_value("natural"),
      "debug: 'shuffle:SEED' ticks clusters in a random order every cycle (results must not change)")(
      "quiet,q", po::bool_switch(&quiet), "no summary or progress");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");
  if (!gpu.empty() && !config_file.empty()) throw po::error("--gpu and --config are exclusive");
  if (schedule.empty()) schedule = options.threads > 1 ? "para1" : "seq";
  options.schedule = schedule;
  options.memcpy_warms_l2 = !no_memcpy_warm;
  options.perfect_memory = perfect;
  options.fast_forward = !no_fast_forward;
  options.shuffle_seed = parse_cluster_order(cluster_order);
  if (!kernels.empty()) options.kernel_ids = parse_kernel_list(kernels);
  parse_schedule(schedule);
  parse_partition(options.partition);
  if (options.threads > 1 && schedule == "seq" && !quiet)
    std::fprintf(stderr, "lockstep run: note: the seq schedule simulates on one thread (--threads %u ignored)\n",
                 options.threads);

  auto trace = open_trace(input);
  if (trace->manifest().kernels.empty()) throw std::runtime_error(input + ": the trace has no kernels");
  std::string which = !config_file.empty() ? config_file : gpu;
  if (which.empty()) which = default_gpu_for(trace->manifest().kernels.front().binary_version);
  const GpuSpec spec = load_gpu_spec(which, sets);

  // A container's index gives the instruction total up front, for the ETA.
  uint64_t expected = 0;
  if (is_container_file(input))
    for (uint32_t k = 0; k < trace->manifest().kernels.size(); ++k) {
      const uint32_t id = trace->manifest().kernels[k].kernel_id;
      if (options.kernel_ids.empty() || std::count(options.kernel_ids.begin(), options.kernel_ids.end(), id))
        expected += trace->summarize(k).warp_insts;
    }
  const auto start = std::chrono::steady_clock::now();
  bool printed_progress = false;
  if (!quiet)
    options.progress = [&](uint32_t k, uint32_t n, uint64_t cycles, uint64_t insts) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (s < 2.0) return;
      const double rate = double(insts) / s;
      char eta[32] = "?";
      if (expected > insts && rate > 0) std::snprintf(eta, sizeof eta, "%.0f s", double(expected - insts) / rate);
      std::fprintf(stderr, "\rkernel %u/%u  %llu cycles  %llu warp insts  %.2f M warp insts/s  ETA %s   ", k + 1, n,
                   (unsigned long long)cycles, (unsigned long long)insts, rate / 1e6, eta);
      printed_progress = true;
    };
  // What was done is reported also when a later kernel fails (marked
  // incomplete; a summary only if some kernel finished); the error itself
  // then ends the command.
  auto report_results = [&](const SimulationReport& report) {
    if (printed_progress) std::fprintf(stderr, "\n");
    printed_progress = false;
    if (!stats_json.empty()) write_stats_json(report, stats_json);
    if (!quiet && (report.error.empty() || !report.kernels.empty())) print_summary(stdout, report);
    std::fflush(stdout);
  };
  options.on_error = report_results;
  report_results(simulate(*trace, spec, options));
  return 0;
}

}  // namespace lockstep::cli
