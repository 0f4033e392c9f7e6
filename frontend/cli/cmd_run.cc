// lockstep run TRACE [--gpu NAME | --config FILE] [--set k=v]... [options]
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/cli/progress_line.h"
#include "frontend/convert/open_trace.h"
#include "frontend/io/process_memory.h"
#include "frontend/io/output_file.h"
#include "configs/spec/gpu_config.h"
#include "parallel/run_models.h"
#include "parallel/simulation.h"
#include "parallel/stats_csv.h"
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
  std::string input, gpu, kernels, stats_json, stats_csv_file, schedule, cluster_order = "natural";
  std::string handshake = "spin", partition = "round-robin", cache_control = "none";
  std::vector<std::string> sets, config_files;
  RunOptions options;
  bool perfect = false, quiet = false, no_fast_forward = false, allow_partial = false, no_memcpy_warm = false;
  po::options_description opts(
      "usage: lockstep run TRACE [options]\n"
      "TRACE: a .lst file or an Accel-Sim trace directory / kernelslist.g (read while streaming)\noptions");
  opts.add_options()("help,h", "show this help")(
      "model", po::value(&options.model)->default_value("cycle"),
      "the model: cycle (cycle by cycle: cycles, IPC, stalls, every counter), memory (cache-functional: the L1, "
      "L2 and DRAM sector and hit counters only, no timing, much faster) or abstract (basic blocks "
      "pre-characterised on the cycle model's SM, only the warp scheduling simulated: cycles, IPC, instructions)")(
      "gpu", po::value(&gpu), "GPU config by name (configs/gpus/NAME.cfg); default: the trace's architecture")(
      "config", po::value(&config_files)->composing(), kConfigHelp)(
      "set", po::value(&sets)->composing(), "override a config key: --set sm.max_warps=48 (repeatable)")(
      "kernels", po::value(&kernels), "simulate only these kernel ids, e.g. 1,3-5 (memcpys still apply)")(
      "stats-json", po::value(&stats_json), "write statistics as JSON to this file ('-': standard output)")(
      "stats-csv", po::value(&stats_csv_file),
      "write statistics as CSV to this file, one row per kernel and the total ('-': standard output)")(
      "per-unit", po::bool_switch(&options.per_unit_stats),
      "with --stats-json: each kernel and the total also per unit, a \"units\" object: every SM as "
      "cluster<C>.sm<ID> (C = ID / gpu.sms_per_cluster), then icnt.request, icnt.reply, l2.slice<ID>, "
      "dram.channel<ID>, each with its raw counters (an error without --stats-json)")(
      "perfect-memory", po::bool_switch(&perfect), "no L1D/L2/DRAM: every global/local access takes sm.perfect_memory_latency")(
      "read-twice-above",
      whole_number("read-twice-above", &options.abstract_read_twice_above, 0, UINT64_MAX),
      "abstract model: a kernel of more warp instructions than this (by a .lst's index) is read twice and its SMs "
      "timed as it is read, in memory its resident blocks bound instead of memory growing with the kernel (same "
      "results, more time; 0: every kernel, also from a text trace)")(
      "threads", whole_number("threads", &options.engine.threads, 1, kMaxThreads),
      "simulation threads, the memory-side thread included (up to 1024, also more than the cores)")(
      "schedule", po::value(&schedule),
      "cycle schedule (default: seq on one thread, para1 with --threads N > 1): seq (one thread), para1 (clusters "
      "over every thread; the memory side on the leader, or "
      "anywhere with --partition balanced), para2 (the memory side on threads of its own: threads / 4, at least 1; "
      "balanced: sized from measured time)")(
      "handshake", po::value(&handshake)->default_value("spin"),
      "per-cycle semaphores: spin (spin, then futex; measured faster) or std (std::counting_semaphore)")(
      "partition", po::value(&partition)->default_value("round-robin"),
      "clusters to threads: round-robin (cluster c to thread c mod N; measured fastest), contiguous, balanced "
      "(clusters and memory-side units by measured time)")(
      "pin", po::bool_switch(&options.engine.pin_threads), "pin simulation thread i to CPU i (optional; same results)")(
      "no-fast-forward", po::bool_switch(&no_fast_forward),
      "simulate every cycle, also those in which nothing can change (results are the same)")(
      "max-cycles", whole_number("max-cycles", &options.max_cycles, 0, UINT64_MAX),
      "stop after this many core cycles (0: none)")(
      "no-memcpy-warm", po::bool_switch(&no_memcpy_warm),
      "start with cold caches: MemcpyHtoD commands do not leave the copied bytes in the L2 (Accel-Sim's "
      "-gpgpu_perf_sim_memcpy 0)")(
      "cache-control", po::value(&cache_control)->default_value("none"),
      "the caches each kernel starts from, as Nsight Compute's --cache-control: none (what the kernels and "
      "copies before left) or all (every cache flushed before each kernel, which then runs alone, as ncu "
      "measures by default); the stats JSON says which")(
      "cluster-order", po::value(&cluster_order)->default_value("natural"),
      "debug: 'shuffle:SEED' ticks clusters in a random order every cycle (results must not change)")(
      "allow-partial", po::bool_switch(&allow_partial), kAllowPartialHelp)(
      "quiet,q", po::bool_switch(&quiet), "no summary or progress");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");
  find_run_model(options.model);  // an unknown name is reported before any work
  if (schedule.empty()) schedule = options.engine.threads > 1 ? "para1" : "seq";
  options.engine.schedule = parse_schedule(schedule);
  options.engine.partition = parse_partition(partition);
  options.engine.handshake = parse_handshake(handshake);
  options.memcpy_warms_l2 = !no_memcpy_warm;
  options.cache_control = parse_cache_control(cache_control);
  options.memory_model = perfect ? "perfect" : "cycle";
  options.engine.fast_forward = !no_fast_forward;
  options.engine.shuffle_seed = parse_cluster_order(cluster_order);
  if (!kernels.empty()) options.kernel_ids = parse_kernel_list(kernels);
  if (options.per_unit_stats && stats_json.empty())
    throw po::error("--per-unit needs --stats-json (the per-unit counters are written only to the JSON file)");
  // Outputs are checked before the work: an unwritable one is reported now, not after the run.
  if (!stats_json.empty() && !stats_csv_file.empty()) {
    auto where = [](const std::string& name) {
      const OutputTarget t = resolve_output(name);
      return t.is_stdout() ? std::string("-") : std::filesystem::absolute(t.path).lexically_normal().string();
    };
    if (where(stats_json) == where(stats_csv_file)) throw po::error("--stats-json and --stats-csv name the same output");
  }
  if (!stats_json.empty()) resolve_output(stats_json);
  if (!stats_csv_file.empty()) resolve_output(stats_csv_file);
  if (options.engine.threads > 1 && options.engine.schedule == Schedule::kSeq && !quiet)
    std::fprintf(stderr, "lockstep run: note: the seq schedule simulates on one thread (--threads %u ignored)\n",
                 options.engine.threads);

  auto trace = open_trace(input, print_warning, partial_policy(allow_partial));
  if (trace->manifest().kernels.empty()) throw std::runtime_error(input + ": the trace has no kernels");
  std::string which = gpu;
  if (which.empty() && config_files.empty()) which = default_gpu_for(trace->manifest().kernels.front().binary_version);
  const GpuSpec spec = load_gpu_spec_layered(which, config_files, sets);

  // A container's index gives the instruction total up front, for the ETA.
  uint64_t expected = 0;
  if (is_container_file(input))
    for (uint32_t k = 0; k < trace->manifest().kernels.size(); ++k) {
      const uint32_t id = trace->manifest().kernels[k].kernel_id;
      if (options.kernel_ids.empty() || std::count(options.kernel_ids.begin(), options.kernel_ids.end(), id))
        expected += trace->summarize(k).warp_insts;
    }
  const auto start = std::chrono::steady_clock::now();
  ProgressLine progress(10.0);
  if (!quiet)
    options.progress = [&](uint32_t k, uint32_t n, uint64_t cycles, uint64_t insts) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (s < 2.0) return;
      const double rate = double(insts) / s;
      char eta[32] = "?";
      if (expected > insts && rate > 0) std::snprintf(eta, sizeof eta, "%.0f s", double(expected - insts) / rate);
      char line[256];
      std::snprintf(line, sizeof line, "kernel %u/%u  %llu cycles  %llu warp insts  %.2f M warp insts/s  ETA %s", k + 1,
                    n, (unsigned long long)cycles, (unsigned long long)insts, rate / 1e6, eta);
      progress.update(line);
    };
  RunProvenance provenance;
  provenance.trace = std::filesystem::absolute(input).lexically_normal().string();
  provenance.gpu_config = which;
  for (const std::string& f : config_files) provenance.gpu_config += (provenance.gpu_config.empty() ? "" : " + ") + f;
  provenance.sets = sets;
  provenance.model = options.model;
  provenance.command_line = shell_command_line("lockstep run", args);
  // What was done is reported also when a later kernel fails: the summary
  // and the JSON, marked incomplete, if some kernel finished (the CSV, which
  // cannot say so, only for a whole run); the error itself then ends the
  // command. With statistics on standard output, the summary goes to stderr.
  auto report_results = [&](SimulationReport report) {
    progress.finish();
    const bool stopped = !report.error.empty();
    if (stopped && report.kernels.empty()) return;
    report.peak_rss_mb = process_peak_rss_mb();
    if (!stats_json.empty()) write_stats_json(report, provenance, stats_json);
    if (!stats_csv_file.empty() && !stopped) write_output_file(stats_csv_file, stats_csv(report));
    if (!quiet) print_summary(stats_json == "-" || stats_csv_file == "-" ? stderr : stdout, report);
    std::fflush(stdout);
  };
  options.on_error = report_results;
  report_results(simulate(*trace, spec, options));
  return 0;
}

}  // namespace lockstep::cli
