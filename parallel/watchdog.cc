#include "parallel/watchdog.h"

namespace lockstep {

uint64_t Watchdog::look(uint64_t now, uint64_t progress, bool nothing_running) {
  next_look_ += kEvery;
  if (progress != progress_before_ || nothing_running) {
    progress_before_ = progress;
    last_progress_cycle_ = now;
    return 0;
  }
  return limit_ && now - last_progress_cycle_ > limit_ ? now - last_progress_cycle_ : 0;
}

std::string Watchdog::message(uint64_t stalled_cycles, const std::string& kernels,
                              const std::vector<std::string>& stuck_warps) {
  std::string msg = "no progress for " + std::to_string(stalled_cycles) + " cycles (watchdog, gpu.watchdog_cycles):";
  msg += kernels;
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < stuck_warps.size() && i < kShown; ++i)
    msg += (i == 0 ? " stuck warps:\n  " : "\n  ") + stuck_warps[i];
  if (stuck_warps.size() > kShown) msg += "\n  ... and " + std::to_string(stuck_warps.size() - kShown) + " more";
  if (stuck_warps.empty()) msg += " no warp is resident";
  return msg;
}

}  // namespace lockstep
