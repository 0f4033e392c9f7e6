#pragma once
// Greedy then oldest: the warp that issued last first, then the others
// oldest first (launch order, WarpState::age).
#include <vector>

#include "core/sm/warp_scheduler.h"

namespace lockstep {

class GtoScheduler final : public WarpScheduler {
 public:
  GtoScheduler(const SmSpec& spec, uint32_t subcore) : WarpScheduler(spec, subcore) {
    by_age_.reserve(active_.capacity());
  }
  IssueOrder order(std::span<const WarpState> warps) override;
  using WarpScheduler::order;
  // The resident warps oldest first (order() is last_issued() moved to the front of it).
  std::span<const uint32_t> by_age(std::span<const WarpState> warps);

 private:
  // The resident warps oldest first, sorted again only when a warp arrived
  // or left (a resident warp's age never changes).
  std::vector<uint32_t> by_age_;
  uint64_t sorted_at_ = UINT64_MAX;  // residency_changes_ when by_age_ was sorted
};

}  // namespace lockstep
