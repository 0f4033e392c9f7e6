#pragma once
// The option parsing every subcommand shares: its options plus one positional
// argument, --help printing the options.
#include <boost/program_options.hpp>
#include <iostream>
#include <algorithm>
#include <string>
#include <vector>

#include "frontend/cli/commands.h"

namespace lockstep::cli {

// Parses `args` into `opts` and the positional `positional` (named `name`).
// Returns false after printing the options when --help was given.
inline bool parse_command_line(const Args& args, const boost::program_options::options_description& opts,
                               const char* name, std::string& positional) {
  namespace po = boost::program_options;
  po::options_description hidden;
  hidden.add_options()(name, po::value(&positional));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add(name, 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

// The shipped config of the GPU generation a trace was recorded on.
inline std::string default_gpu_for(uint32_t binary_version) {
  switch (binary_version / 10) {
    case 6: return "GTX1080";
    case 7: return binary_version >= 75 ? "RTX2060" : "QV100";
    case 8: return binary_version >= 86 ? "RTX3070" : "A100";
    case 9: return "H100";
    default: return "QV100";
  }
}

// "1,2,4" -> {1, 2, 4}; "seq,para1" -> {"seq", "para1"}.
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    if (comma > pos) out.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}
inline std::vector<uint32_t> parse_thread_list(const std::string& text) {
  std::vector<uint32_t> out;
  for (const std::string& item : split_list(text)) {
    size_t used = 0;
    unsigned long v = 0;
    try {
      v = std::stoul(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v == 0 || v > 1024)
      throw boost::program_options::error("--threads: bad thread count '" + item + "' (expected e.g. 1,2,4)");
    out.push_back(uint32_t(v));
  }
  if (out.empty()) throw boost::program_options::error("--threads: empty list");
  return out;
}

}  // namespace lockstep::cli
