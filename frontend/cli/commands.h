#pragma once
// Subcommands of the `lockstep` driver. Each takes the arguments after its own
// name and returns the process exit code; errors are reported by throwing
// (TraceError, boost::program_options::error, std::runtime_error), which
// main() turns into one "lockstep: error: ..." line and exit code 1.
#include <string>
#include <vector>

namespace lockstep::cli {

using Args = std::vector<std::string>;

int cmd_convert(const Args& args);
int cmd_info(const Args& args);
int cmd_export(const Args& args);
int cmd_gen(const Args& args);
int cmd_config(const Args& args);
int cmd_run(const Args& args);
int cmd_verify(const Args& args);
int cmd_compare(const Args& args);
int cmd_bench(const Args& args);
int cmd_diff(const Args& args);
int cmd_sweep(const Args& args);
int cmd_correlate(const Args& args);
int cmd_tune(const Args& args);

}  // namespace lockstep::cli
