#pragma once
// Loose round robin: the sub-core's warp slots in order, starting after the last issuer.
#include "core/sm/warp_scheduler.h"

namespace lockstep {

class LrrScheduler final : public WarpScheduler {
 public:
  using WarpScheduler::WarpScheduler;
  void order(std::span<const WarpState> warps, std::vector<uint32_t>& order) const override;
};

}  // namespace lockstep
