// lockstep correlate --hw FILE STATS... [--hw-cache-control all|none] [--csv DIR] [--plots DIR]
// Hardware counters (an Nsight Compute CSV or a gt file of cycles) against
// lockstep stats JSON files: kernels matched by name and launch order, the
// error per counter and per kernel, one scatter plot per counter.
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/io/output_file.h"
#include "frontend/validate/correlation.h"
#include "frontend/validate/hardware_counters.h"
#include "frontend/validate/stats_files.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace lockstep::cli {
namespace {

using namespace lockstep::validate;

// One line on stderr when the caches the hardware counters were taken with
// are unknown, or differ from those of the simulated runs.
void warn_cache_control(const std::string& hw_setting, const SimulatedRuns& sim) {
  if (hw_setting.empty()) {
    std::fprintf(stderr,
                 "lockstep correlate: warning: the hardware file does not say how its caches were handled (ncu "
                 "flushes every cache before each kernel unless run with --cache-control none); say it with "
                 "--hw-cache-control all|none\n");
    return;
  }
  std::string differing;
  size_t count = 0;
  for (const StatsFileCacheControl& f : sim.cache_control)
    if (f.cache_control != hw_setting) {
      if (++count <= 3) differing += (differing.empty() ? "" : ", ") + f.file;
    }
  if (!count) return;
  if (count > 3) differing += ", ...";
  std::fprintf(stderr,
               "lockstep correlate: warning: the hardware counters are from --cache-control %s, %zu simulated run(s) "
               "from %s (%s): cache and memory counters are not comparable\n",
               hw_setting.c_str(), count, hw_setting == "all" ? "none" : "all", differing.c_str());
}

}  // namespace

int cmd_correlate(const Args& args) {
  std::string hw_file, hw_cache_control, csv_dir, plot_dir;
  std::vector<std::string> stats;
  po::options_description opts(
      "usage: lockstep correlate --hw FILE STATS... [options]\n"
      "Compares hardware counters with simulated ones. FILE: Nsight Compute's CSV (ncu --csv --page raw --metrics\n"
      "...; lines before its header are skipped) or a gt file of cycles (whole numbers, one per kernel; a directory\n"
      "means its gt file). STATS: lockstep run --stats-json files or directories of them (*.json, by name), in\n"
      "launch order. Kernels are matched by name and launch order (by launch order alone for a gt file); what is\n"
      "left unmatched is listed. Prints per counter the kernels compared, the error (MAE % for cycles,\n"
      "instructions and IPC, NRMSE for the rest), Pearson r and the kernels within 10%, then per kernel\n"
      "hardware, simulated and error.\noptions");
  opts.add_options()("help,h", "show this help")("hw", po::value(&hw_file), "hardware counters (required)")(
      "hw-cache-control", po::value(&hw_cache_control),
      "all or none: how the hardware counters were profiled (ncu --cache-control; its default is all); unknown "
      "when not given, with a warning")(
      "csv", po::value(&csv_dir), "write counters.csv and kernels.csv (the two tables) into this directory")(
      "plots", po::value(&plot_dir),
      "write one scatter plot per counter, <counter>.png (hardware on x, simulated on y, log-log, y = x), into "
      "this directory");
  if (!parse_command_line(args, opts, "stats", stats)) return 0;
  if (hw_file.empty()) throw po::error("missing --hw FILE");
  if (stats.empty()) throw po::error("missing STATS (lockstep run --stats-json files or directories)");
  if (!hw_cache_control.empty() && hw_cache_control != "all" && hw_cache_control != "none")
    throw po::error("--hw-cache-control " + hw_cache_control + ": expected all or none");

  // Every input is read and checked before anything is written.
  const KernelSequence hw = read_hardware_counters(hw_file, hardware_metrics());
  const SimulatedRuns sim = read_stats_files(stats);
  const Correlation c = correlate(hw, sim.kernels);
  if (c.matching.pairs.empty())
    throw std::runtime_error("no hardware kernel matched a simulated one (" + std::to_string(hw.kernels.size()) +
                             " hardware, " + std::to_string(sim.kernels.kernels.size()) + " simulated; " +
                             (c.matching.unmatched.empty() ? std::string("none") : c.matching.unmatched.front()) + ")");
  if (c.counters.empty())
    throw std::runtime_error(hw_file + ": no counter to compare: none of the columns lockstep compares (e.g. " +
                             std::string(kCyclesCounter) + ") has a value for a matched kernel");
  warn_cache_control(hw_cache_control, sim);

  std::printf("lockstep correlate: hardware %s, %zu kernel(s); simulated %s, %zu kernel(s)\n", hw.description.c_str(),
              hw.kernels.size(), sim.kernels.description.c_str(), sim.kernels.kernels.size());
  std::printf("matched %zu kernel(s) %s", c.matching.pairs.size(),
              c.matching.by_name ? "by name and launch order" : "by launch order (the hardware file has no names)");
  std::printf(c.matching.unmatched.empty() && sim.left_out.empty() ? "\n" : "; not compared:\n");
  for (const std::string& u : c.matching.unmatched) std::printf("  %s\n", u.c_str());
  for (const std::string& u : sim.left_out) std::printf("  %s\n", u.c_str());
  std::printf("\nper counter (error: MAE %% for cycles, instructions and IPC, NRMSE for the rest):\n%s",
              counter_table_text(c).c_str());
  std::printf("\nper kernel (error = (simulated - hardware) / hardware):\n%s", kernel_table_text(c).c_str());

  if (!csv_dir.empty()) {
    fs::create_directories(csv_dir);
    write_output_file((fs::path(csv_dir) / "counters.csv").string(), counter_table_csv(c));
    write_output_file((fs::path(csv_dir) / "kernels.csv").string(), kernel_table_csv(c));
    std::printf("\nwrote %s and %s\n", (fs::path(csv_dir) / "counters.csv").c_str(),
                (fs::path(csv_dir) / "kernels.csv").c_str());
  }
  if (!plot_dir.empty()) {
    fs::create_directories(plot_dir);
    size_t drawn = 0;
    std::string skipped;
    for (const CounterComparison& k : c.counters) {
      if (plot_counter(k, fs::path(plot_dir) / plot_file_name(k)))
        ++drawn;
      else
        skipped += (skipped.empty() ? "" : ", ") + k.pair->counter;
    }
    std::printf("wrote %zu scatter plot(s) to %s%s%s\n", drawn, plot_dir.c_str(),
                skipped.empty() ? "" : "; none for (no kernel above zero on both sides): ", skipped.c_str());
  }
  return 0;
}

}  // namespace lockstep::cli
