#pragma once
// The one list of the memory side's interchangeable policies: every policy
// of every kind, under its config name, with the file that implements it.
// The config keys (their value lists, hence `lockstep config --keys` and
// configs/README.md) and the spec's *_name() spellings read it; nothing
// registers itself. A policy called per access or per command is selected
// by a switch over its enum where it is used (no virtual call).
//
//   kind            enum              config key                    implementations
//   index hash      IndexHash         l2.set_hash, l2.partition_hash, dram.bank_hash   memsys/index_hash/
//   DRAM scheduler  DramScheduler     dram.scheduler                memsys/dram/scheduler/
//   page policy     PagePolicy        dram.page_policy              memsys/dram/page_policy/
//   refresh         DramRefresh       dram.tREFI, dram.per_bank_refresh   memsys/dram/refresh/
//   replacement     CacheReplacement  (fixed)                       memsys/sector_cache.cc
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "configs/spec/memory_spec.h"

namespace lockstep {

// How a DRAM channel refreshes (from dram.tREFI and dram.per_bank_refresh: dram_refresh()).
enum class DramRefresh : uint8_t { kNone = 0, kAllBank, kPerBank };
// Which line of a full set a cache replaces.
enum class CacheReplacement : uint8_t { kLru = 0 };

DramRefresh dram_refresh(const DramSpec& spec);

template <typename Id>
struct PolicyEntry {
  Id id;
  const char* name;         // config spelling (lower case)
  const char* description;  // one line
  const char* source;       // the file that implements it
};

namespace policy_registry {

inline constexpr std::array kIndexHashes = {
    PolicyEntry<IndexHash>{IndexHash::kLinear, "linear", "plain address bits", "memsys/index_hash/linear.h"},
    PolicyEntry<IndexHash>{IndexHash::kIpoly, "ipoly", "irreducible-polynomial hash (Accel-Sim's IPOLY)",
                           "memsys/index_hash/ipoly.cc"},
    PolicyEntry<IndexHash>{IndexHash::kXor, "xor", "index bits XORed with higher address bits",
                           "memsys/index_hash/xor_fold.h"},
};
inline constexpr std::array kDramSchedulers = {
    PolicyEntry<DramScheduler>{DramScheduler::kFrFcfs, "fr_fcfs", "row hits first, then oldest",
                               "memsys/dram/scheduler/fr_fcfs.cc"},
    PolicyEntry<DramScheduler>{DramScheduler::kFcfs, "fcfs", "column commands in arrival order",
                               "memsys/dram/scheduler/fcfs.cc"},
};
inline constexpr std::array kPagePolicies = {
    PolicyEntry<PagePolicy>{PagePolicy::kOpen, "open", "rows stay open after an access",
                            "memsys/dram/page_policy/open.cc"},
    PolicyEntry<PagePolicy>{PagePolicy::kClosed, "closed", "RDA/WRA: the bank precharges after each access",
                            "memsys/dram/page_policy/closed.cc"},
};
inline constexpr std::array kDramRefreshes = {
    PolicyEntry<DramRefresh>{DramRefresh::kNone, "none", "no refresh (dram.tREFI = 0)",
                             "memsys/dram/refresh/none.cc"},
    PolicyEntry<DramRefresh>{DramRefresh::kAllBank, "all_bank", "every bank at once every dram.tREFI (GDDR)",
                             "memsys/dram/refresh/all_bank.cc"},
    PolicyEntry<DramRefresh>{DramRefresh::kPerBank, "per_bank",
                             "one bank in rotation every dram.tREFI / dram.banks (HBM REFSB; dram.per_bank_refresh)",
                             "memsys/dram/refresh/per_bank.cc"},
};
inline constexpr std::array kCacheReplacements = {
    PolicyEntry<CacheReplacement>{CacheReplacement::kLru, "lru", "least recently used line of the set",
                                  "memsys/sector_cache.cc"},
};

}  // namespace policy_registry

// The registry's list for one kind, by its enum.
template <typename Id>
constexpr const auto& policies() {
  if constexpr (std::is_same_v<Id, IndexHash>) return policy_registry::kIndexHashes;
  else if constexpr (std::is_same_v<Id, DramScheduler>) return policy_registry::kDramSchedulers;
  else if constexpr (std::is_same_v<Id, PagePolicy>) return policy_registry::kPagePolicies;
  else if constexpr (std::is_same_v<Id, DramRefresh>) return policy_registry::kDramRefreshes;
  else return policy_registry::kCacheReplacements;
}

// Config spelling of a policy ("?" for a value outside the registry).
template <typename Id>
constexpr const char* policy_name(Id id) {
  for (const PolicyEntry<Id>& e : policies<Id>())
    if (e.id == id) return e.name;
  return "?";
}

// Every policy of a kind, in registry order (the config keys' value lists).
template <typename Id>
std::vector<Id> policy_ids() {
  std::vector<Id> ids;
  for (const PolicyEntry<Id>& e : policies<Id>()) ids.push_back(e.id);
  return ids;
}

}  // namespace lockstep
