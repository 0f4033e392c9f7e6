#pragma once
// The one-line progress of a sweep on stderr: done / running / pending /
// failed and an ETA from the points finished so far.
#include <chrono>
#include <cstddef>

namespace lockstep::sweep {

struct SweepCounts {
  size_t done = 0, running = 0, pending = 0, failed = 0;
};

class ProgressLine {
 public:
  // `total`: the points this run or wait covers.
  explicit ProgressLine(size_t total);
  // Redraws the line when the counts changed (always with `force`).
  void update(const SweepCounts& counts, bool force = false);
  // Ends the line.
  void finish();

 private:
  size_t total_;
  std::chrono::steady_clock::time_point start_;
  SweepCounts last_{};
  bool drawn_ = false;
};

}  // namespace lockstep::sweep
