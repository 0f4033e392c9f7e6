#pragma once
// Greedy then oldest: the last issuer first, then the other warps oldest (earliest launched) first.
#include "core/sm/warp_scheduler.h"

namespace lockstep {

class GtoScheduler final : public WarpScheduler {
 public:
  using WarpScheduler::WarpScheduler;
  IssueOrder order(std::span<const WarpState> warps) override;
  using WarpScheduler::order;
};

}  // namespace lockstep
