#include "core/sm/gto_scheduler.h"

#include <algorithm>

namespace lockstep {

std::span<const uint32_t> GtoScheduler::by_age(std::span<const WarpState> warps) {
  if (sorted_at_ != residency_changes_) {
    by_age_.assign(active_.begin(), active_.end());
    std::sort(by_age_.begin(), by_age_.end(), [&](uint32_t a, uint32_t b) { return warps[a].age < warps[b].age; });
    sorted_at_ = residency_changes_;
  }
  return by_age_;
}

IssueOrder GtoScheduler::order(std::span<const WarpState> warps) {
  by_age(warps);
  std::vector<uint32_t>& order = sorted_;
  order.assign(by_age_.begin(), by_age_.end());
  auto it = std::find(order.begin(), order.end(), last_issued_);
  if (it != order.end()) std::rotate(order.begin(), it, it + 1);
  return IssueOrder{order, {}};
}

}  // namespace lockstep
