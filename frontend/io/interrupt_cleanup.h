#pragma once
// Temporary outputs removed when the process is interrupted. An output being
// written lives under a temporary name until it is complete (output_file.h,
// output_directory.h); on SIGINT, SIGTERM or SIGHUP those names are removed
// and the process then ends by the same signal, so a killed run, conversion
// or benchmark leaves nothing behind.
//
// install() blocks the three signals in the calling thread, and so in every
// thread started after it, and starts one thread that waits for them: the
// removal runs in that thread, outside a signal handler. Call it first thing
// in main(). A child made by fork() has them unblocked again (std::system
// children do not: use fork and exec). Without install() the signals act as
// by default and only the ordinary error paths remove temporaries.
//
// The registry is process-wide because a signal is: it is the one shared
// state here, guarded by a mutex.
#include <sys/types.h>

#include <filesystem>

namespace lockstep {

class InterruptCleanup {
 public:
  static void install();
  // Registers a temporary file or directory (removed recursively on a signal).
  static void add(const std::filesystem::path& temp);
  // Forgets it: it was renamed into place or removed.
  static void forget(const std::filesystem::path& temp);
  // A child process that gets the same signal first (a benchmark's `lockstep`).
  static void add_child(pid_t pid);
  static void forget_child(pid_t pid);
};

}  // namespace lockstep
