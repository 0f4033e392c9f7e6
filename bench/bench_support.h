#pragma once
// What every benchmark binary shares: --help printing the usage at the top of
// its source, a scratch directory that never outlives the run, and children
// run with the signals as by default.
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
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

// The benchmark's scratch directory: a new directory made inside `parent`
// (created if missing) with a unique name starting with `prefix`, removed
// when the object goes (any return) and on SIGINT, SIGTERM or SIGHUP
// (frontend/io/interrupt_cleanup.h). Only that new directory is ever removed,
// never `parent` or anything else in it: --workdir names where scratch goes,
// and may be a directory that holds the user's own files. Construct it first
// in main(), before any thread starts (make(): null, after saying what and
// where on stderr, when the directory cannot be made).
class ScratchDir {
 public:
  static std::unique_ptr<ScratchDir> make(const std::filesystem::path& parent, const std::string& prefix) {
    try {
      return std::make_unique<ScratchDir>(parent, prefix);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return nullptr;
    }
  }
  // Throws std::runtime_error (what and where) when the directory cannot be made.
  ScratchDir(const std::filesystem::path& parent, const std::string& prefix) {
    InterruptCleanup::install();
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    std::string name = (parent / (prefix + "-XXXXXX")).string();
    if (ec || ::mkdtemp(name.data()) == nullptr)
      throw std::runtime_error("cannot make a scratch directory in " + parent.string() + ": " +
                               (ec ? ec.message() : std::string(std::strerror(errno))));
    path_ = name;
    InterruptCleanup::add(path_);
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

// The peak RSS (MB) of a `lockstep run` child: what its stats JSON
// (`json`, the file's text) says ("peak_rss_mb", the child's own high-water
// mark), else `usage.ru_maxrss`, which also counts this benchmark's own size
// at the fork (the maximum is carried across exec).
inline double child_peak_rss_mb(const std::string& json, const rusage& usage) {
  const size_t at = json.rfind("\"peak_rss_mb\"");
  if (at != std::string::npos) {
    const double mb = std::atof(json.c_str() + json.find(':', at) + 1);
    if (mb > 0) return mb;
  }
  return double(usage.ru_maxrss) / 1024.0;
}

}  // namespace lockstep::bench
