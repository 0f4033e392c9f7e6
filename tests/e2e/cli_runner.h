#pragma once
// The short names the CLI test files use for running the built driver
// (tests/e2e/cli_command.h): Result, lockstep_cmd, lines, write.
#include <filesystem>
#include <string>

#include "tests/e2e/cli_command.h"

namespace lockstep {

using Result = test::CommandResult;
using test::lockstep_cmd;
inline int lines(const std::string& s) { return test::count_lines(s); }
inline void write(const std::filesystem::path& p, const std::string& text) { test::write_text(p, text); }

}  // namespace lockstep
