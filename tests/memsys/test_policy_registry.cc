// The one policy registry (configs/spec/policy_registry.h): every kind lists
// distinct config names, each implemented in the file it names; the spec's
// spellings and the refresh selection read it.
#include "configs/spec/policy_registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

namespace lockstep {
namespace {

template <typename Id>
void check_kind(size_t expected) {
  const auto& entries = policies<Id>();
  EXPECT_EQ(entries.size(), expected);
  std::set<std::string> names;
  std::set<int> ids;
  for (const PolicyEntry<Id>& e : entries) {
    SCOPED_TRACE(e.name);
    EXPECT_TRUE(names.insert(e.name).second) << "name listed twice";
    EXPECT_TRUE(ids.insert(int(e.id)).second) << "policy listed twice";
    EXPECT_STREQ(policy_name(e.id), e.name);
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(LOCKSTEP_SOURCE_DIR) / e.source)) << e.source;
  }
  EXPECT_EQ(policy_ids<Id>().size(), expected);
}

TEST(PolicyRegistry, EveryKindListsDistinctNamesImplementedWhereItSays) {
  check_kind<IndexHash>(3);
  check_kind<DramScheduler>(2);
  check_kind<PagePolicy>(2);
  check_kind<DramRefresh>(3);
  check_kind<CacheReplacement>(1);
}

// Each DRAM policy is one file of its kind's folder, named after the policy.
template <typename Id>
void check_named_files() {
  for (const PolicyEntry<Id>& e : policies<Id>()) {
    SCOPED_TRACE(e.name);
    EXPECT_EQ(std::filesystem::path(e.source).stem().string(), e.name);
  }
}

TEST(PolicyRegistry, DramPoliciesLiveInFilesNamedAfterThem) {
  check_named_files<DramScheduler>();
  check_named_files<PagePolicy>();
  check_named_files<DramRefresh>();
}

TEST(PolicyRegistry, TheConfigSpellingsAreTheRegistrys) {
  EXPECT_STREQ(index_hash_name(IndexHash::kXor), "xor");
  EXPECT_STREQ(dram_scheduler_name(DramScheduler::kFrFcfs), "fr_fcfs");
  EXPECT_STREQ(page_policy_name(PagePolicy::kClosed), "closed");
  EXPECT_STREQ(index_hash_name(IndexHash(7)), "?");
}

TEST(PolicyRegistry, RefreshFollowsTheIntervalAndThePerBankSwitch) {
  DramSpec d;
  d.tREFI = 0;
  d.per_bank_refresh = true;
  EXPECT_EQ(dram_refresh(d), DramRefresh::kNone);
  d.tREFI = 3900;
  EXPECT_EQ(dram_refresh(d), DramRefresh::kPerBank);
  d.per_bank_refresh = false;
  EXPECT_EQ(dram_refresh(d), DramRefresh::kAllBank);
}

}  // namespace
}  // namespace lockstep
