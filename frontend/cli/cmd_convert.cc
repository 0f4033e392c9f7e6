// lockstep convert IN -o OUT.lst [--jobs N] [--quiet]
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "frontend/cli/commands.h"
#include "frontend/convert/converter.h"

namespace po = boost::program_options;

namespace lockstep::cli {

int cmd_convert(const Args& args) {
  std::string input, output;
  ConvertOptions options;
  bool quiet = false;
  po::options_description opts(
      "usage: lockstep convert IN -o OUT.lst [options]\n"
      "IN: an Accel-Sim trace directory, a kernelslist(.g), or one kernel-N.traceg[.xz] / raw kernel-N.trace[.xz]\n"
      "options");
  opts.add_options()("help,h", "show this help")("output,o", po::value(&output), "output .lst file (required)")(
      "jobs,j", po::value(&options.jobs)->default_value(0), "worker threads (0 = all cores)")(
      "quiet,q", po::bool_switch(&quiet), "print nothing on success");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&input));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  po::notify(vm);
  if (input.empty()) throw po::error("missing input trace");
  if (output.empty()) throw po::error("missing -o OUT.lst");

  const ConvertReport r = convert_text_trace(input, output, options);
  if (!quiet)
    std::printf("converted %u kernels, %llu blocks, %llu warp instructions: %llu -> %llu bytes (%.2fx) in %.2f s (%.2f M warp insts/s)\n",
                r.kernels, (unsigned long long)r.blocks, (unsigned long long)r.warp_insts,
                (unsigned long long)r.input_bytes, (unsigned long long)r.output_bytes,
                r.output_bytes ? double(r.input_bytes) / double(r.output_bytes) : 0.0, r.seconds,
                r.seconds > 0 ? double(r.warp_insts) / r.seconds / 1e6 : 0.0);
  return 0;
}

}  // namespace lockstep::cli
