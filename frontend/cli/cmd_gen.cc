// lockstep gen WORKLOAD -o DIR [--size N] [--seed N] [--sms N] [--arch sm70|sm80]
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/gen/workload_generator.h"

namespace po = boost::program_options;

namespace lockstep::cli {

int cmd_gen(const Args& args) {
  std::string workload, output, size = "200K", arch = "sm70";
  uint64_t seed = 1;
  uint32_t sms = 80;
  bool quiet = false;
  std::ostringstream usage;
  usage << "usage: lockstep gen WORKLOAD -o DIR [options]\n"
           "Writes a synthetic Accel-Sim trace (kernelslist.g, kernel-N.traceg) of WORKLOAD:\n";
  for (const std::string& name : workload_names()) usage << "  " << name << ": " << workload_summary(name) << "\n";
  usage << "or of a microbenchmark to fit a config to your GPU (trace it there with the NVBit tracer, profile it\n"
           "with ncu, compare or tune: --size is what it counts, not warp instructions; --sms does not apply):\n";
  for (const std::string& name : microbenchmark_names())
    usage << "  " << name << ": " << workload_summary(name) << "\n";
  usage << "options";
  po::options_description opts(usage.str());
  opts.add_options()("help,h", "show this help")("output,o", po::value(&output), "output directory (required)")(
      "size", po::value(&size)->default_value(size),
      "approximate total warp instructions (of a microbenchmark: its FFMAs, loads or blocks); K/M/G suffixes = "
      "1e3/1e6/1e9")(
      "seed", whole_number("seed", &seed, 0, UINT64_MAX), "random seed; same options give identical files")(
      "sms", whole_number("sms", &sms, 1, 1024), "SM count the grids are sized for")(
      "arch", po::value(&arch)->default_value(arch), "sm70 or sm80 (binary version and SASS spelling)")(
      "quiet,q", po::bool_switch(&quiet), "print nothing on success");
  if (!parse_command_line(args, opts, "workload", workload)) return 0;
  if (workload.empty()) throw po::error("missing WORKLOAD");
  if (output.empty()) throw po::error("missing -o DIR");

  GenOptions options;
  options.workload = workload;
  options.size = parse_size(size);
  options.seed = seed;
  options.sms = sms;
  options.arch = parse_arch(arch);
  check_gen_output(output);
  const auto start = std::chrono::steady_clock::now();
  const GenSummary s = generate_trace(options, output);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!quiet)
    std::printf("generated %s: %u kernels, %llu blocks, %llu warp instructions, %llu bytes in %.2f s (%.1f MB/s) to %s\n",
                workload.c_str(), s.kernels, (unsigned long long)s.blocks, (unsigned long long)s.warp_insts,
                (unsigned long long)s.bytes, seconds, seconds > 0 ? double(s.bytes) / 1e6 / seconds : 0.0,
                output.c_str());
  return 0;
}

}  // namespace lockstep::cli
