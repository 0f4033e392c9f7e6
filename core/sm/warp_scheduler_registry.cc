#include "core/sm/warp_scheduler_registry.h"

#include <array>
#include <stdexcept>
#include <string>


namespace lockstep {
namespace {

template <class Policy>
AnyWarpScheduler make(const SmSpec& spec, uint32_t subcore) {
  return AnyWarpScheduler(std::in_place_type<Policy>, spec, subcore);
}

constexpr std::array<WarpSchedulerEntry, 3> kRegistry{{
    {WarpSchedulerPolicy::kLrr, &make<LrrScheduler>},
    {WarpSchedulerPolicy::kGto, &make<GtoScheduler>},
    {WarpSchedulerPolicy::kTwoLevel, &make<TwoLevelScheduler>},
}};

const WarpSchedulerEntry* find(WarpSchedulerPolicy policy) {
  for (const WarpSchedulerEntry& e : kRegistry)
    if (e.policy == policy) return &e;
  return nullptr;
}

}  // namespace

std::span<const WarpSchedulerEntry> warp_scheduler_registry() { return kRegistry; }

AnyWarpScheduler make_warp_scheduler(const SmSpec& spec, uint32_t subcore) {
  const WarpSchedulerEntry* e = find(spec.scheduler);
  if (!e) throw std::invalid_argument("sm.scheduler: policy " + std::to_string(int(spec.scheduler)) + " is not registered");
  return e->make(spec, subcore);
}

}  // namespace lockstep
