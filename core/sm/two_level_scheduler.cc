#include "core/sm/two_level_scheduler.h"

#include <algorithm>

namespace lockstep {

IssueOrder TwoLevelScheduler::order(std::span<const WarpState> warps) {
  std::vector<uint32_t>& order = sorted_;
  order.assign(active_.begin(), active_.end());
  if (order.empty()) return IssueOrder{};
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const bool ma = warps[a].outstanding_memory > 0, mb = warps[b].outstanding_memory > 0;
    if (ma != mb) return !ma;
    return warps[a].age < warps[b].age;
  });
  const size_t pool = std::min<size_t>(order.size(), std::max(1u, spec_.two_level_active_warps));
  auto end = order.begin() + long(pool);
  auto it = std::find(order.begin(), end, last_issued_);
  if (it != end) std::rotate(order.begin(), it + 1, end);
  return IssueOrder{order, {}};
}

}  // namespace lockstep
