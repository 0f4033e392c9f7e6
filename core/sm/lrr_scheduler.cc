#include "core/sm/lrr_scheduler.h"

#include <algorithm>

namespace lockstep {

void LrrScheduler::order(std::span<const WarpState> /*warps*/, std::vector<uint32_t>& order) const {
  const auto start = last_issued_ == UINT32_MAX ? active_.begin()
                                                : std::upper_bound(active_.begin(), active_.end(), last_issued_);
  order.assign(start, active_.end());
  order.insert(order.end(), active_.begin(), start);
}

}  // namespace lockstep
