// The warp scheduling policies' issue order, one sub-core at a time.
#include <gtest/gtest.h>

#include <vector>

#include "core/sm/gto_scheduler.h"
#include "core/sm/lrr_scheduler.h"
#include "core/sm/two_level_scheduler.h"
#include "core/sm/warp_scheduler_registry.h"

namespace lockstep {
namespace {

// One sub-core with `n` warp slots; slot i launched with age ages[i].
SmSpec one_subcore(uint32_t n) {
  SmSpec s;
  s.subcores = 1;
  s.max_warps = n;
  s.two_level_active_warps = 2;
  return s;
}
std::vector<WarpState> warps_with_ages(const std::vector<uint64_t>& ages) {
  std::vector<WarpState> w(ages.size());
  for (size_t i = 0; i < ages.size(); ++i) {
    w[i].active = true;
    w[i].age = ages[i];
  }
  return w;
}
template <class Policy>
std::vector<uint32_t> order_after(const SmSpec& spec, const std::vector<WarpState>& warps, uint32_t last_issued) {
  Policy p(spec, 0);
  for (uint32_t slot = 0; slot < warps.size(); slot += spec.subcores)
    if (warps[slot].active) p.add_warp(slot);
  if (last_issued != UINT32_MAX) p.issued(last_issued);
  std::vector<uint32_t> out;
  p.order(warps, out);
  return out;
}

TEST(WarpSchedulers, GtoIssuesTheLastIssuerFirstThenOldest) {
  const SmSpec spec = one_subcore(4);
  const std::vector<WarpState> w = warps_with_ages({30, 10, 40, 20});
  EXPECT_EQ(order_after<GtoScheduler>(spec, w, UINT32_MAX), (std::vector<uint32_t>{1, 3, 0, 2}));
  EXPECT_EQ(order_after<GtoScheduler>(spec, w, 2), (std::vector<uint32_t>{2, 1, 3, 0}));
}

TEST(WarpSchedulers, LrrStartsAfterTheLastIssuerAndSkipsEmptySlots) {
  const SmSpec spec = one_subcore(4);
  std::vector<WarpState> w = warps_with_ages({0, 1, 2, 3});
  EXPECT_EQ(order_after<LrrScheduler>(spec, w, UINT32_MAX), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(order_after<LrrScheduler>(spec, w, 1), (std::vector<uint32_t>{2, 3, 0, 1}));
  w[3].active = false;
  EXPECT_EQ(order_after<LrrScheduler>(spec, w, 2), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(WarpSchedulers, LrrWalksOnlyItsSubcoresSlots) {
  SmSpec spec = one_subcore(8);
  spec.subcores = 2;  // sub-core 1 holds slots 1, 3, 5, 7
  const std::vector<WarpState> w = warps_with_ages({0, 1, 2, 3, 4, 5, 6, 7});
  LrrScheduler p(spec, 1);
  for (uint32_t slot : {1u, 3u, 5u, 7u}) p.add_warp(slot);
  p.issued(3);
  std::vector<uint32_t> out;
  p.order(w, out);
  EXPECT_EQ(out, (std::vector<uint32_t>{5, 7, 1, 3}));
}

TEST(WarpSchedulers, TwoLevelKeepsThePoolOfOldestWarpsNotWaitingOnMemory) {
  const SmSpec spec = one_subcore(4);  // pool of 2
  std::vector<WarpState> w = warps_with_ages({0, 1, 2, 3});
  w[0].outstanding_memory = 1;  // waits on memory: leaves the pool, goes last
  // Pool {1, 2} (the oldest not waiting), then 3, then 0.
  EXPECT_EQ(order_after<TwoLevelScheduler>(spec, w, UINT32_MAX), (std::vector<uint32_t>{1, 2, 3, 0}));
  // Round robin inside the pool: after 1 comes 2; the warps outside keep their places.
  EXPECT_EQ(order_after<TwoLevelScheduler>(spec, w, 1), (std::vector<uint32_t>{2, 1, 3, 0}));
  // A last issuer outside the pool does not move it.
  EXPECT_EQ(order_after<TwoLevelScheduler>(spec, w, 3), (std::vector<uint32_t>{1, 2, 3, 0}));
}

TEST(WarpSchedulers, TheRegistryBuildsEveryNamedPolicyOnce) {
  std::vector<std::string> names;
  for (WarpSchedulerPolicy policy : warp_scheduler_policies()) {
    names.push_back(warp_scheduler_name(policy));
    int entries = 0;
    for (const WarpSchedulerEntry& e : warp_scheduler_registry()) entries += e.policy == policy;
    EXPECT_EQ(entries, 1) << names.back();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"lrr", "gto", "two_level"}));
  EXPECT_EQ(warp_scheduler_registry().size(), names.size());
  SmSpec spec = one_subcore(4);
  const std::vector<WarpState> w = warps_with_ages({30, 10, 40, 20});
  spec.scheduler = WarpSchedulerPolicy::kGto;
  std::vector<uint32_t> out;
  AnyWarpScheduler gto = make_warp_scheduler(spec, 0);
  ASSERT_TRUE(std::holds_alternative<GtoScheduler>(gto));
  for (uint32_t slot = 0; slot < 4; ++slot) base_of(gto).add_warp(slot);
  base_of(gto).order(w, out);
  EXPECT_EQ(out, (std::vector<uint32_t>{1, 3, 0, 2}));  // oldest first: the GTO class
}

}  // namespace
}  // namespace lockstep
