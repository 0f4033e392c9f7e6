// lockstep convert IN -o OUT.lst [--jobs N] [--quiet]
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/convert/converter.h"
#include "frontend/convert/open_trace.h"
#include "frontend/convert/repacker.h"
#include "frontend/io/output_target.h"

namespace po = boost::program_options;

namespace lockstep::cli {

int cmd_convert(const Args& args) {
  std::string input, output;
  ConvertOptions options;
  bool quiet = false, allow_partial = false;
  po::options_description opts(
      "usage: lockstep convert IN -o OUT.lst [options]\n"
      "IN: an Accel-Sim trace directory, a kernelslist(.g), or one kernel-N.traceg[.xz] / raw kernel-N.trace[.xz];\n"
      "or a .lst, written again in this version's format (and --segment-insts)\n"
      "options");
  opts.add_options()("help,h", "show this help")("output,o", po::value(&output), "output .lst file (required; '-': standard output)")(
      "jobs,j", whole_number("jobs", &options.jobs, 0, kMaxThreads), "worker threads (0 = all cores)")(
      "segment-insts", whole_number("segment-insts", &options.segment_insts, 0, 1u << 30),
      "store blocks whose warps are longer in segments of this many instructions per warp, so that simulation "
      "memory does not grow with block length (0: blocks whole)")(
      "format-version",
      whole_number("format-version", &options.format_version, container::kOldestWritableVersion,
                   container::kFormatVersion),
      "the .lst format to write: 2 for lockstep builds before format 3 (every kernel's block index in the "
      "footer, read whole when the file is opened)")(
      "allow-partial", po::bool_switch(&allow_partial), kAllowPartialHelp)(
      "quiet,q", po::bool_switch(&quiet), "print nothing on success");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing input trace");
  if (output.empty()) throw po::error("missing -o OUT.lst");
  resolve_output(output);  // an unwritable output is reported before the conversion

  options.partial = partial_policy(allow_partial);
  const ConvertReport r =
      is_container_file(input) || std::filesystem::path(input).extension() == ".lst"
          ? repack_container(input, output, options) : convert_text_trace(input, output, options);
  if (!quiet)
    std::fprintf(output == "-" ? stderr : stdout, "converted %u kernels, %llu blocks, %llu warp instructions: %llu -> %llu bytes (%.2fx) in %.2f s (%.2f M warp insts/s)\n",
                r.kernels, (unsigned long long)r.blocks, (unsigned long long)r.warp_insts,
                (unsigned long long)r.input_bytes, (unsigned long long)r.output_bytes,
                r.output_bytes ? double(r.input_bytes) / double(r.output_bytes) : 0.0, r.seconds,
                r.seconds > 0 ? double(r.warp_insts) / r.seconds / 1e6 : 0.0);
  return 0;
}

}  // namespace lockstep::cli
