#pragma once
// Child processes of a sweep: one `lockstep run` per point, and the tools it
// drives (sbatch, squeue, scontrol, gnuplot). Programs are found on PATH.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace lockstep::sweep {

// Starts argv[0] with stdin from /dev/null and stdout + stderr appended to
// `log`; returns its pid. Throws std::runtime_error when it cannot start.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::filesystem::path& log);

// Waits for the child `pid` (-1: any child) to end; returns its wait status
// and, through `ended`, which child it was.
int wait_for(pid_t pid, pid_t* ended = nullptr);

struct ProcessResult {
  int exit_code = -1;  // -1: ended by a signal
  std::string out, err;
};

// Runs argv[0] (stdin from /dev/null) to its end and returns its output.
// Throws std::runtime_error when the program is not found or cannot start.
ProcessResult run_captured(const std::vector<std::string>& argv);

// "exit status 1", "killed by signal 15 (Terminated)".
std::string describe_wait_status(int status);

// The command as a shell line, each argument quoted where needed.
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace lockstep::sweep
