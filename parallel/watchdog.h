#pragma once
// Stops a run that makes no progress. Progress is a warp instruction issued
// or a block moved (dispatched or retired), or no kernel running (between
// kernels a launch is due). The GPU shows it the run every kEvery cycles, in
// simulated and in skipped cycles alike (fast-forward stops at each look);
// after more than gpu.watchdog_cycles without progress it fires.
#include <cstdint>
#include <string>
#include <vector>

namespace lockstep {

class Watchdog {
 public:
  static constexpr uint64_t kEvery = 1024;

  // `limit`: gpu.watchdog_cycles (0: never fires); `start`: the run's first cycle.
  Watchdog(uint64_t limit, uint64_t start) : limit_(limit), last_progress_cycle_(start), next_look_(start + kEvery) {}

  // The last cycle before the next look (a jump in time must stop there).
  uint64_t next_look() const { return next_look_; }
  bool due(uint64_t now) const { return now + 1 >= next_look_; }
  // The look at the end of cycle `now`: `progress` counts instructions issued
  // and blocks moved so far. Returns the cycles without progress when that is
  // over the limit (the run must stop: message()), else 0.
  uint64_t look(uint64_t now, uint64_t progress, bool nothing_running);

  // The error: what each running kernel has done (`kernels`, each entry ending
  // in ';') and the first stuck warps.
  static std::string message(uint64_t stalled_cycles, const std::string& kernels,
                             const std::vector<std::string>& stuck_warps);

 private:
  const uint64_t limit_;
  uint64_t progress_before_ = 0, last_progress_cycle_;
  uint64_t next_look_;
};

}  // namespace lockstep
