#pragma once
// The option parsing every subcommand shares: its options plus one positional
// argument, --help printing the options.
#include <boost/program_options.hpp>
#include <iostream>
#include <string>

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

}  // namespace lockstep::cli
