#pragma once
// When a DRAM channel's refreshes fall due and how many it owes. Each refresh
// policy (configs/spec/policy_registry.h: DramRefresh) gives the interval
// between its refresh commands and how many may be owed at once: none.cc,
// all_bank.cc, per_bank.cc. The channel picks the policy once (dram_refresh()),
// builds its clock from refresh_timing(), and pays what the clock says is owed.
#include <algorithm>
#include <cstdint>

#include "configs/spec/memory_spec.h"
#include "configs/spec/policy_registry.h"

namespace lockstep {

struct RefreshTiming {
  uint32_t interval = 0;  // DRAM cycles between refresh commands; 0: none is ever due
  uint32_t max_owed = 0;  // refreshes that may be owed at once (later ones are dropped)
};

RefreshTiming no_refresh_timing(const DramSpec& spec);        // memsys/dram/refresh/none.cc
RefreshTiming all_bank_refresh_timing(const DramSpec& spec);  // memsys/dram/refresh/all_bank.cc
RefreshTiming per_bank_refresh_timing(const DramSpec& spec);  // memsys/dram/refresh/per_bank.cc

inline RefreshTiming refresh_timing(DramRefresh kind, const DramSpec& spec) {
  switch (kind) {
    case DramRefresh::kAllBank:
      return all_bank_refresh_timing(spec);
    case DramRefresh::kPerBank:
      return per_bank_refresh_timing(spec);
    case DramRefresh::kNone:
      break;
  }
  return no_refresh_timing(spec);
}

class RefreshClock {
 public:
  explicit RefreshClock(RefreshTiming timing)
      : interval_(timing.interval), max_owed_(timing.max_owed), due_at_(timing.interval == 0 ? UINT64_MAX : timing.interval) {}

  // The cycle the next refresh falls due (UINT64_MAX: never).
  uint64_t due_at() const { return due_at_; }
  // Refreshes due and not yet issued.
  uint32_t owed() const { return owed_; }

  // Counts the refreshes that have fallen due by `now` (at most max_owed owed).
  void note_due(uint64_t now) {
    if (now < due_at_) return;
    const uint64_t due = (now - due_at_) / interval_ + 1;
    owed_ = uint32_t(std::min<uint64_t>(owed_ + due, max_owed_));
    due_at_ += due * interval_;
  }
  // One owed refresh has issued.
  void paid() { --owed_; }

 private:
  uint32_t interval_;
  uint32_t max_owed_;
  uint64_t due_at_;
  uint32_t owed_ = 0;
};

}  // namespace lockstep
