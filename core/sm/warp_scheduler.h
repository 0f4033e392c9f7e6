#pragma once
// The warp scheduler of one sub-core: each cycle it orders the sub-core's
// resident warps (slots subcore, subcore + subcores, ...; told as they arrive
// and leave); issue offers them
// the issue slots in that order. One class per policy (lrr_scheduler.h,
// gto_scheduler.h, two_level_scheduler.h); warp_scheduler_registry.h maps
// the names of sm.scheduler to them. Called once per sub-core per cycle.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/sm/warp_state.h"
#include "configs/spec/sm_spec.h"

namespace lockstep {

// This cycle's issue order: the slots of `head`, then those of `tail` (two
// spans, so that a rotation of the resident list needs no copy).
struct IssueOrder {
  std::span<const uint32_t> head, tail;
  // Head and tail each list their warps in ascending slot order and the tail
  // ends below the head's first slot (a rotation of the slot order): issue may
  // then walk the sub-core's warps by index instead of through the lists.
  bool slot_rotation = false;
};

class WarpScheduler {
 public:
  WarpScheduler(const SmSpec& spec, uint32_t subcore)
      : spec_(spec), subcore_(subcore) {
    active_.reserve((spec.max_warps - subcore + spec.subcores - 1) / spec.subcores);
    sorted_.reserve(active_.capacity());
  }
  virtual ~WarpScheduler() = default;

  // The sub-core's active warp slots in this cycle's issue order (valid
  // until the next call or the next add_warp / remove_warp).
  virtual IssueOrder order(std::span<const WarpState> warps) = 0;
  // The same as one list (tests, debugging).
  void order(std::span<const WarpState> warps, std::vector<uint32_t>& out) {
    const IssueOrder o = order(warps);
    out.assign(o.head.begin(), o.head.end());
    out.insert(out.end(), o.tail.begin(), o.tail.end());
  }
  // A warp arrived in / left `slot` (one of the sub-core's slots).
  void add_warp(uint32_t slot) {
    active_.insert(std::upper_bound(active_.begin(), active_.end(), slot), slot);
    ++residency_changes_;
  }
  void remove_warp(uint32_t slot) {
    active_.erase(std::find(active_.begin(), active_.end(), slot));
    ++residency_changes_;
  }
  // The warp in `slot` issued.
  void issued(uint32_t slot) { last_issued_ = slot; }
  uint32_t last_issued() const { return last_issued_; }  // UINT32_MAX before any issue
  // The sub-core's resident warp slots, in slot order (fetch walks them too).
  std::span<const uint32_t> resident() const { return active_; }

 protected:
  const SmSpec& spec_;
  const uint32_t subcore_;
  std::vector<uint32_t> active_;  // the sub-core's resident warp slots, in slot order
  std::vector<uint32_t> sorted_;  // scratch of the policies that sort (GTO, two-level)
  uint64_t residency_changes_ = 0;  // warps added or removed so far (policies that cache an order)
  uint32_t last_issued_ = UINT32_MAX;
};

}  // namespace lockstep
