#pragma once
// Greedy then oldest: the last issuer first, then the other warps oldest (earliest launched) first.
#include "core/sm/warp_scheduler.h"

namespace lockstep {

class GtoScheduler final : public WarpScheduler {
 public:
  using WarpScheduler::WarpScheduler;
  void order(std::span<const WarpState> warps, std::vector<uint32_t>& order) const override;
};

}  // namespace lockstep
