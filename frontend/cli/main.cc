// lockstep: the command-line driver.
#include <boost/program_options/errors.hpp>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "frontend/cli/commands.h"
#include "frontend/io/interrupt_cleanup.h"
#include "frontend/trace/version.h"

namespace {

struct Subcommand {
  const char* name;
  int (*run)(const lockstep::cli::Args&);
  const char* summary;
};

constexpr Subcommand kSubcommands[] = {
    {"run", lockstep::cli::cmd_run, "simulate a trace on a GPU config and report cycles, IPC and counters"},
    {"verify", lockstep::cli::cmd_verify, "run a trace on every schedule / thread count / partition and compare all counters"},
    {"compare", lockstep::cli::cmd_compare, "run a trace with several models (cycle, memory, abstract) and tabulate their common counters"},
    {"bench", lockstep::cli::cmd_bench, "time a trace on several thread counts and schedules (median of repetitions)"},
    {"convert", lockstep::cli::cmd_convert, "convert an Accel-Sim text trace to a .lst container"},
    {"info", lockstep::cli::cmd_info, "summarise a trace (.lst or Accel-Sim text)"},
    {"export", lockstep::cli::cmd_export, "write a .lst back as Accel-Sim text"},
    {"gen", lockstep::cli::cmd_gen, "generate a synthetic Accel-Sim trace of a named workload"},
    {"sweep", lockstep::cli::cmd_sweep, "run traces x GPU configs x overrides locally or as Slurm job arrays; collect a CSV"},
    {"config", lockstep::cli::cmd_config, "check, summarise or dump a GPU config; list the shipped GPUs"},
    {"correlate", lockstep::cli::cmd_correlate, "compare hardware counters (Nsight Compute CSV, gt cycles) with --stats-json files: errors, tables, plots"},
    {"tune", lockstep::cli::cmd_tune, "config overlays from hardware: import microbenchmark results, fit keys to measured cycles"},
    {"diff", lockstep::cli::cmd_diff, "compare two --stats-json files: the counters that differ, largest first"},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: lockstep COMMAND [options]   (lockstep COMMAND --help for its options)\n\ncommands:\n");
  for (const Subcommand& c : kSubcommands) std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  lockstep::InterruptCleanup::install();  // before any thread: temporary outputs go on SIGINT/SIGTERM
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("lockstep %s\n", lockstep::kVersion);
    return 0;
  }
  for (const Subcommand& c : kSubcommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    lockstep::cli::Args args(argv + 2, argv + argc);
    try {
      return c.run(args);
    } catch (const boost::program_options::error& e) {
      std::fprintf(stderr, "lockstep %s: error: %s (see lockstep %s --help)\n", c.name, e.what(), c.name);
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lockstep %s: error: %s\n", c.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "lockstep: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
