#include "core/sm/lrr_scheduler.h"

namespace lockstep {

void LrrScheduler::order(std::span<const WarpState> warps, std::vector<uint32_t>& order) const {
  order.clear();
  const uint32_t per = (spec_.max_warps - subcore_ + spec_.subcores - 1) / spec_.subcores;
  uint32_t k = last_issued_ == UINT32_MAX ? 0 : (last_issued_ - subcore_) / spec_.subcores + 1;
  for (uint32_t i = 0; i < per; ++i, ++k) {
    if (k >= per) k = 0;
    const uint32_t slot = subcore_ + k * spec_.subcores;
    if (warps[slot].active) order.push_back(slot);
  }
}

}  // namespace lockstep
