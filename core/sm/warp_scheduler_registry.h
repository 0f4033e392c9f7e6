#pragma once
// The warp scheduling policies, by the name sm.scheduler gives them: one
// explicit list (warp_scheduler_registry.cc); a new policy is a class and a
// line there.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/sm/warp_scheduler.h"
#include "core/sm_spec.h"

namespace lockstep {

struct WarpSchedulerEntry {
  const char* name;  // as sm.scheduler spells it
  WarpSchedulerPolicy policy;
  std::unique_ptr<WarpScheduler> (*make)(const SmSpec& spec, uint32_t subcore);
};

std::span<const WarpSchedulerEntry> warp_scheduler_registry();
// The policies in registry order (for the config key's choices).
std::vector<WarpSchedulerPolicy> warp_scheduler_policies();
// The name of `policy` ("?" for a value not in the registry).
const char* warp_scheduler_name(WarpSchedulerPolicy policy);
// The scheduler of sub-core `subcore` under spec.scheduler.
std::unique_ptr<WarpScheduler> make_warp_scheduler(const SmSpec& spec, uint32_t subcore);

}  // namespace lockstep
