// lockstep export TRACE -o DIR
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/convert/exporter.h"
#include "frontend/convert/open_trace.h"

namespace po = boost::program_options;

namespace lockstep::cli {

int cmd_export(const Args& args) {
  std::string input, output;
  bool quiet = false, allow_partial = false;
  po::options_description opts(
      "usage: lockstep export TRACE -o DIR [options]\n"
      "Writes TRACE (a .lst, or a text trace to normalise) as an Accel-Sim trace directory.\noptions");
  opts.add_options()("help,h", "show this help")("output,o", po::value(&output), "output directory (required)")(
      "allow-partial", po::bool_switch(&allow_partial), kAllowPartialHelp)(
      "quiet,q", po::bool_switch(&quiet), "print nothing on success");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");
  if (output.empty()) throw po::error("missing -o DIR");
  check_export_output(output);
  auto trace = open_trace(input, print_warning, partial_policy(allow_partial));
  const ExportReport r = export_text_trace(*trace, output);
  if (!quiet)
    std::printf("exported %u kernels, %llu blocks, %llu warp instructions, %llu bytes to %s\n", r.kernels,
                (unsigned long long)r.blocks, (unsigned long long)r.warp_insts, (unsigned long long)r.bytes,
                output.c_str());
  return 0;
}

}  // namespace lockstep::cli
