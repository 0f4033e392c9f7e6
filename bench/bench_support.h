#pragma once
// What every benchmark binary shares: --help printing the usage at the top of
// its source, a scratch directory that never outlives the run, and children
// run with the signals as by default.
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/io/interrupt_cleanup.h"

namespace lockstep::bench {

// True, after printing `usage`, when the arguments hold --help or -h.
inline bool wants_help(int argc, char** argv, const char* usage) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(usage, stdout);
      return true;
    }
  return false;
}

// The benchmark's scratch directory: removed when the object goes (any
// return) and on SIGINT, SIGTERM or SIGHUP (frontend/io/interrupt_cleanup.h).
// Construct it first in main(), before any thread starts.
class ScratchDir {
 public:
  explicit ScratchDir(std::filesystem::path path) : path_(std::move(path)) {
    InterruptCleanup::install();
    InterruptCleanup::add(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    InterruptCleanup::forget(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs `argv` in a forked child and waits for it: its wait status, and its
// resource use in `usage` if given (`ru_maxrss` counts the benchmark's own
// resident memory at the fork too: the kernel carries it across exec, so a
// benchmark that measures a child's peak stays small itself). The child gets
// SIGINT/SIGTERM/SIGHUP as by default, and the one that ends the benchmark
// too. `quiet`: its standard output goes to /dev/null.
inline int run_child(const std::vector<std::string>& argv, rusage* usage = nullptr, bool quiet = false) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (quiet) {
      const int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, STDOUT_FILENO);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  if (pid < 0) return -1;
  InterruptCleanup::add_child(pid);
  int status = 0;
  rusage ignored{};
  const pid_t waited = wait4(pid, &status, 0, usage ? usage : &ignored);
  InterruptCleanup::forget_child(pid);
  return waited < 0 ? -1 : status;
}

// `command` run by /bin/sh as run_child does; its exit code (-1 if it did not exit).
inline int run_shell(const std::string& command) {
  const int status = run_child({"/bin/sh", "-c", command});
  return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace lockstep::bench
