#pragma once
// The warp scheduling policies: one explicit list (warp_scheduler_registry.cc)
// of the class that implements each. A new policy is a class and a line
// there, and its name in warp_scheduler_policies() (configs/spec/sm_spec.cc).
#include <cstdint>
#include <memory>
#include <span>

#include "core/sm/warp_scheduler.h"
#include "configs/spec/sm_spec.h"

namespace lockstep {

struct WarpSchedulerEntry {
  WarpSchedulerPolicy policy;
  std::unique_ptr<WarpScheduler> (*make)(const SmSpec& spec, uint32_t subcore);
};

std::span<const WarpSchedulerEntry> warp_scheduler_registry();
// The scheduler of sub-core `subcore` under spec.scheduler.
std::unique_ptr<WarpScheduler> make_warp_scheduler(const SmSpec& spec, uint32_t subcore);

}  // namespace lockstep
