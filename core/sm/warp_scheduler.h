#pragma once
// The warp scheduler of one sub-core: each cycle it orders the sub-core's
// resident warps (slots subcore, subcore + subcores, ...); issue offers them
// the issue slots in that order. One class per policy (lrr_scheduler.h,
// gto_scheduler.h, two_level_scheduler.h); warp_scheduler_registry.h maps
// the names of sm.scheduler to them. Called once per sub-core per cycle.
#include <cstdint>
#include <span>
#include <vector>

#include "core/sm/warp_state.h"
#include "core/sm_spec.h"

namespace lockstep {

class WarpScheduler {
 public:
  WarpScheduler(const SmSpec& spec, uint32_t subcore) : spec_(spec), subcore_(subcore) {}
  virtual ~WarpScheduler() = default;

  // The sub-core's active warp slots in this cycle's issue order (into `order`, cleared first).
  virtual void order(std::span<const WarpState> warps, std::vector<uint32_t>& order) const = 0;
  // The warp in `slot` issued.
  void issued(uint32_t slot) { last_issued_ = slot; }
  uint32_t last_issued() const { return last_issued_; }  // UINT32_MAX before any issue

 protected:
  // The sub-core's active warp slots, in slot order.
  void active_slots(std::span<const WarpState> warps, std::vector<uint32_t>& out) const {
    out.clear();
    for (uint32_t slot = subcore_; slot < spec_.max_warps; slot += spec_.subcores)
      if (warps[slot].active) out.push_back(slot);
  }

  const SmSpec& spec_;
  const uint32_t subcore_;
  uint32_t last_issued_ = UINT32_MAX;
};

}  // namespace lockstep
