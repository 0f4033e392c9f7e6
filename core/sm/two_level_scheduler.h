#pragma once
// Two-level: an active pool of the sm.two_level_active_warps oldest warps not
// waiting on memory, round robin inside the pool (after the last issuer);
// then the other warps, those not waiting on memory first, oldest first.
#include "core/sm/warp_scheduler.h"

namespace lockstep {

class TwoLevelScheduler final : public WarpScheduler {
 public:
  using WarpScheduler::WarpScheduler;
  IssueOrder order(std::span<const WarpState> warps) override;
  using WarpScheduler::order;
};

}  // namespace lockstep
