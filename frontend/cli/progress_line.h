#pragma once
// A progress report on stderr. On a terminal one line is rewritten in place
// ('\r'); anywhere else (a log file, a pipe) every update is a whole line,
// at most one per `min_interval_s` seconds so that logs stay short.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace lockstep::cli {

class ProgressLine {
 public:
  explicit ProgressLine(double min_interval_s = 0) : min_interval_s_(min_interval_s), terminal_(::isatty(STDERR_FILENO)) {}
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const std::string& text) {
    if (terminal_) {
      std::fprintf(stderr, "\r%s   ", text.c_str());
      open_ = true;
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (printed_ && std::chrono::duration<double>(now - last_).count() < min_interval_s_) return;
    std::fprintf(stderr, "%s\n", text.c_str());
    printed_ = true;
    last_ = now;
  }
  // Ends the line on a terminal, so that what follows starts on its own.
  void finish() {
    if (open_) std::fprintf(stderr, "\n");
    open_ = false;
  }

 private:
  double min_interval_s_;
  bool terminal_;
  bool open_ = false, printed_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace lockstep::cli
