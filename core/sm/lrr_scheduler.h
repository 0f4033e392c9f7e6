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
    if (start_for_issued_ != last_issued_ || start_for_changes_ != residency_changes_) {
      start_ = last_issued_ == UINT32_MAX
                   ? 0
                   : size_t(std::upper_bound(active.begin(), active.end(), last_issued_) - active.begin());
      start_for_issued_ = last_issued_;
      start_for_changes_ = residency_changes_;
    }
    return IssueOrder{active.subspan(start_), active.first(start_), true};
  }
  using WarpScheduler::order;

 private:
  // Where the order starts in the resident list, for the last issuer and
  // residency it was found for (both change far less often than every cycle).
  size_t start_ = 0;
  uint32_t start_for_issued_ = UINT32_MAX;
  uint64_t start_for_changes_ = UINT64_MAX;
};

}  // namespace lockstep
