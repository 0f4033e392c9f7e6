#include "core/sm/warp_scheduler_registry.h"

#include <array>
#include <stdexcept>
#include <string>

#include "core/sm/gto_scheduler.h"
#include "core/sm/lrr_scheduler.h"
#include "core/sm/two_level_scheduler.h"

namespace lockstep {
namespace {

template <class Policy>
std::unique_ptr<WarpScheduler> make(const SmSpec& spec, uint32_t subcore) {
  return std::make_unique<Policy>(spec, subcore);
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

std::unique_ptr<WarpScheduler> make_warp_scheduler(const SmSpec& spec, uint32_t subcore) {
  const WarpSchedulerEntry* e = find(spec.scheduler);
  if (!e) throw std::invalid_argument("sm.scheduler: policy " + std::to_string(int(spec.scheduler)) + " is not registered");
  return e->make(spec, subcore);
}

}  // namespace lockstep
