// lockstep tune import FILE [-o OVERLAY] [--gpu NAME]
// lockstep tune fit TRACE... --param KEY=LOW:HIGH... [--hw FILE] [-o OVERLAY] [options]
// Config overlays from hardware: Accel-Sim's microbenchmark results mapped to
// config keys, or config keys fitted to measured kernel cycles.
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "configs/spec/gpu_config.h"
#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/io/output_file.h"
#include "frontend/validate/config_fit.h"
#include "frontend/validate/counter_pairs.h"
#include "frontend/validate/hardware_counters.h"
#include "frontend/validate/microbench_import.h"
#include "parallel/stats_csv.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace lockstep::cli {
namespace {

using namespace lockstep::validate;

int tune_import(const Args& args) {
  std::string input, output, gpu = "QV100";
  po::options_description opts(
      "usage: lockstep tune import FILE [options]\n"
      "Maps the output of Accel-Sim's GPU microbenchmark suite (the '-gpgpu_... value' lines its run_all.sh\n"
      "prints) to lockstep config keys and writes them as a config overlay (run --gpu NAME --config OVERLAY);\n"
      "lists the options it could not map. Bad lines are errors, one line each, and nothing is written.\noptions");
  opts.add_options()("help,h", "show this help")("output,o", po::value(&output),
                                                 "write the overlay here (default: standard output)")(
      "gpu", po::value(&gpu)->default_value(gpu), "check that the overlay loads over this GPU config");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing FILE (the microbenchmarks' output)");
  if (!output.empty()) resolve_output(output);
  const MicrobenchImport imported = import_microbenchmarks(input);
  if (!imported.errors.empty()) {
    for (const std::string& e : imported.errors) std::fprintf(stderr, "lockstep tune: error: %s\n", e.c_str());
    return 1;
  }
  if (imported.overlay.entries.empty()) throw std::runtime_error(input + ": no option that maps to a lockstep config key");
  try {
    load_gpu_spec_layered(gpu, {}, imported.overlay.as_overrides());
  } catch (const ConfigError& e) {
    throw std::runtime_error(input + ": the overlay does not load over " + gpu + ": " + e.what());
  }
  std::FILE* report = output.empty() || output == "-" ? stderr : stdout;
  write_output_file(output.empty() ? "-" : output, imported.overlay.text());
  std::fprintf(report, "lockstep tune import: %zu option(s) mapped to %zu config key(s)%s%s\n", imported.mapped,
               imported.overlay.entries.size(), output.empty() ? "" : ", written to ", output.c_str());
  if (!imported.unmapped.empty()) {
    std::fprintf(report, "not mapped (%zu):\n", imported.unmapped.size());
    for (const std::string& u : imported.unmapped) std::fprintf(report, "  %s\n", u.c_str());
  }
  return 0;
}

std::string percent(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", v);
  return buf;
}

// Per kernel: hardware cycles, before and after, as text and CSV.
void print_fit_tables(std::FILE* out, const FitResult& r, const std::string& csv_file) {
  std::fprintf(out, "\n  %-36s %14s %14s %10s %14s %10s\n", "kernel", "hardware", "before", "error", "after", "error");
  std::string csv = "kernel,hardware_source,hardware_cycles,before_cycles,before_error_pct,after_cycles,after_error_pct\n";
  for (size_t i = 0; i < r.start.kernels.size() && i < r.best.kernels.size(); ++i) {
    const FitPoint::Kernel& a = r.start.kernels[i];
    const FitPoint::Kernel& b = r.best.kernels[i];
    const double ea = 100.0 * (a.simulated - a.hardware) / a.hardware, eb = 100.0 * (b.simulated - b.hardware) / b.hardware;
    const std::string name = a.name.size() > 36 ? a.name.substr(0, 33) + "..." : a.name;
    std::fprintf(out, "  %-36s %14.0f %14.0f %10s %14.0f %10s\n", name.c_str(), a.hardware, a.simulated, percent(ea).c_str(),
                b.simulated, percent(eb).c_str());
    csv += csv_field(a.name) + "," + csv_field(a.hardware_where) + "," + std::to_string(uint64_t(a.hardware)) + "," +
           std::to_string(uint64_t(a.simulated)) + "," + percent(ea).substr(0, percent(ea).size() - 1) + "," +
           std::to_string(uint64_t(b.simulated)) + "," + percent(eb).substr(0, percent(eb).size() - 1) + "\n";
  }
  std::fprintf(out, "  %-36s %14s %14s %10s %14s %10s\n", "mean absolute error", "", "",
              percent(r.start.mean_abs_error).substr(1).c_str(), "", percent(r.best.mean_abs_error).substr(1).c_str());
  if (!csv_file.empty()) write_output_file(csv_file, csv);
}

int tune_fit(const Args& args) {
  std::vector<std::string> traces, params;
  std::string hw_file, output, csv_file;
  uint64_t max_runs = 200, jobs = 0;
  SimulationInputs inputs;
  po::options_description opts(
      "usage: lockstep tune fit TRACE... --param KEY=LOW:HIGH... [options]\n"
      "Searches whole-number values of the given config keys, each within LOW..HIGH, that minimise the root\n"
      "mean square of the kernels' relative cycle errors (gpc__cycles_elapsed.max against hardware cycles),\n"
      "from the base config's values: each round probes one step down and up per key (in parallel), then\n"
      "tries every improving key's probe at once and a Gauss-Newton step from the probes' slopes; a key's\n"
      "step (first a quarter of its range) halves when neither of its probes improved; at steps of 1 it\n"
      "restarts once with smaller steps from the best point. Deterministic: the same inputs give the same\n"
      "result on any number of threads. Hardware cycles: each TRACE's gt file\n"
      "(kernels by launch order), or --hw FILE (an ncu CSV or gt file) for all traces' kernels in order.\n"
      "Writes the fitted keys as a config overlay and prints a before/after table.\noptions");
  opts.add_options()("help,h", "show this help")("param", po::value(&params)->composing(),
                                                 "KEY=LOW:HIGH, a key to fit and its range (repeatable)")(
      "hw", po::value(&hw_file), "hardware counters for all traces (default: each trace's gt file)")(
      "output,o", po::value(&output), "write the overlay here (default: standard output)")(
      "csv", po::value(&csv_file), "write the before/after table as CSV to this file")(
      "max-runs", whole_number("max-runs", &max_runs, 1, 1000000), "configs simulated at most, the start included")(
      "jobs", whole_number("jobs", &jobs, 0, kMaxThreads), "simulations at once (0: one per core)");
  inputs.add_to(opts);
  if (!parse_command_line(args, opts, "trace", traces)) return 0;
  if (traces.empty()) throw po::error("missing TRACE");
  if (params.empty()) throw po::error("missing --param KEY=LOW:HIGH");
  if (!output.empty()) resolve_output(output);
  if (!csv_file.empty()) resolve_output(csv_file);

  FitOptions options;
  for (const std::string& p : params) {
    try {
      options.parameters.push_back(parse_fit_parameter(p));
    } catch (const std::invalid_argument& e) {
      throw po::error(e.what());
    }
  }
  options.gpu = inputs.gpu;
  if (options.gpu.empty() && inputs.config_files.empty())
    options.gpu = default_gpu_for(inputs.open(traces[0])->manifest().kernels.at(0).binary_version);
  options.config_files = inputs.config_files;
  options.sets = inputs.sets;
  options.run = inputs.options();
  options.partial = inputs.partial();
  options.max_runs = max_runs;
  options.jobs = unsigned(jobs);
  std::vector<FitTarget> targets;
  if (!hw_file.empty()) {
    targets.push_back({traces, read_hardware_counters(hw_file, {counter_pairs()[0].hardware})});
  } else {
    for (const std::string& t : traces) targets.push_back({{t}, read_gt_file(t)});
  }
  const FitResult r = fit_config(targets, options);

  ConfigOverlay overlay;
  char summary[256];
  std::snprintf(summary, sizeof summary, "cycle error (RMS) %.3f%% -> %.3f%%, (MAE) %.3f%% -> %.3f%% in %zu runs (%s)",
                r.start.error, r.best.error, r.start.mean_abs_error, r.best.mean_abs_error, r.runs,
                r.converged ? "converged" : "run budget reached");
  overlay.header.push_back("lockstep config overlay fitted to hardware cycles (lockstep tune fit)");
  overlay.header.push_back(summary);
  for (size_t i = 0; i < options.parameters.size(); ++i) {
    const FitParameter& p = options.parameters[i];
    overlay.set(p.key, std::to_string(r.best.values[i]),
                "fitted in " + std::to_string(p.low) + ".." + std::to_string(p.high) + ", start " +
                    std::to_string(r.start.values[i]));
  }
  write_output_file(output.empty() ? "-" : output, overlay.text());
  std::FILE* out = output.empty() ? stderr : stdout;  // the overlay itself may be on stdout
  std::fprintf(out, "lockstep tune fit: %s\n", summary);
  for (size_t i = 0; i < options.parameters.size(); ++i)
    std::fprintf(out, "  %s: %lld -> %lld\n", options.parameters[i].key.c_str(), (long long)r.start.values[i],
                (long long)r.best.values[i]);
  for (const std::string& u : r.best.unmatched) std::fprintf(out, "  not compared: %s\n", u.c_str());
  print_fit_tables(out, r, csv_file);
  if (!output.empty()) std::fprintf(out, "\nwrote %s\n", output.c_str());
  return 0;
}

}  // namespace

int cmd_tune(const Args& args) {
  const std::string usage =
      "usage: lockstep tune import FILE [options]   map GPU microbenchmark results to a config overlay\n"
      "       lockstep tune fit TRACE... --param KEY=LOW:HIGH... [options]   fit config keys to hardware cycles\n"
      "(lockstep tune import --help, lockstep tune fit --help for the options)";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::printf("%s\n", usage.c_str());
    return args.empty() ? 2 : 0;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "import") return tune_import(rest);
  if (args[0] == "fit") return tune_fit(rest);
  throw po::error("unknown tune command '" + args[0] + "' (import or fit)");
}

}  // namespace lockstep::cli
