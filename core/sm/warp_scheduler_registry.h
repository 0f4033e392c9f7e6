#pragma once
// The warp scheduling policies: one explicit list (warp_scheduler_registry.cc)
// of the class that implements each. A new policy is a class and a line
// there, and its name in warp_scheduler_policies() (configs/spec/sm_spec.cc).
#include <cstdint>
#include <memory>
#include <span>

#include <variant>

#include "core/sm/gto_scheduler.h"
#include "core/sm/lrr_scheduler.h"
#include "core/sm/two_level_scheduler.h"
#include "core/sm/warp_scheduler.h"
#include "configs/spec/sm_spec.h"

namespace lockstep {

// One sub-core's scheduler, held by value: the SM calls its policy without a
// virtual call (a std::visit switch per sub-core per cycle).
using AnyWarpScheduler = std::variant<LrrScheduler, GtoScheduler, TwoLevelScheduler>;
// Its policy-independent part (resident warps, last issuer).
inline WarpScheduler& base_of(AnyWarpScheduler& s) {
  return std::visit([](auto& policy) -> WarpScheduler& { return policy; }, s);
}
inline const WarpScheduler& base_of(const AnyWarpScheduler& s) {
  return std::visit([](const auto& policy) -> const WarpScheduler& { return policy; }, s);
}

struct WarpSchedulerEntry {
  WarpSchedulerPolicy policy;
  AnyWarpScheduler (*make)(const SmSpec& spec, uint32_t subcore);
};

std::span<const WarpSchedulerEntry> warp_scheduler_registry();
// The scheduler of sub-core `subcore` under spec.scheduler.
AnyWarpScheduler make_warp_scheduler(const SmSpec& spec, uint32_t subcore);

}  // namespace lockstep
