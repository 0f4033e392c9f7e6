#include "frontend/sweep/progress.h"

#include <cstdio>

namespace lockstep::sweep {

ProgressLine::ProgressLine(size_t total) : total_(total), start_(std::chrono::steady_clock::now()) {}

void ProgressLine::update(const SweepCounts& c, bool force) {
  if (drawn_ && !force && c.done == last_.done && c.running == last_.running && c.pending == last_.pending &&
      c.failed == last_.failed)
    return;
  last_ = c;
  drawn_ = true;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const size_t finished = c.done + c.failed;
  char eta[32] = "?";
  if (finished > 0 && finished < total_) {
    // Time per finished point (at the parallelism seen so far) times the points left.
    const double per_point = elapsed / double(finished);
    std::snprintf(eta, sizeof eta, "%.0f s", per_point * double(total_ - finished));
  } else if (finished == total_) {
    std::snprintf(eta, sizeof eta, "0 s");
  }
  std::fprintf(stderr, "\rsweep: %zu/%zu done, %zu running, %zu pending, %zu failed, %.0f s elapsed, ETA %s   ", c.done,
               total_, c.running, c.pending, c.failed, elapsed, eta);
  std::fflush(stderr);
}

void ProgressLine::finish() {
  if (drawn_) std::fprintf(stderr, "\n");
  drawn_ = false;
}

}  // namespace lockstep::sweep
