#pragma once
// Loose round robin: the sub-core's warp slots in order, starting after the last issuer.
#include <algorithm>

#include "core/sm/warp_scheduler.h"

namespace lockstep {

class LrrScheduler final : public WarpScheduler {
 public:
  using WarpScheduler::WarpScheduler;
  // Inline: called per sub-core per cycle.
  IssueOrder order(std::span<const WarpState> /*warps*/) override {
    const std::span<const uint32_t> active(active_);
    const size_t start = last_issued_ == UINT32_MAX
                             ? 0
                             : size_t(std::upper_bound(active.begin(), active.end(), last_issued_) - active.begin());
    return IssueOrder{active.subspan(start), active.first(start), true};
  }
  using WarpScheduler::order;
};

}  // namespace lockstep
