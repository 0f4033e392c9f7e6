#pragma once
// Per sub-core, the cycle from which each of its `per_subcore` resources of
// one kind (execution pipelines, operand-collector units) is free again, in
// one flat array; with the latest of those cycles, so that asking when the
// next busy one frees costs nothing while none is busy.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lockstep {

class SubcoreFreeCycles {
 public:
  SubcoreFreeCycles() = default;
  SubcoreFreeCycles(uint32_t subcores, uint32_t per_subcore)
      : per_subcore_(per_subcore), free_at_(size_t(subcores) * per_subcore, 0) {}

  uint32_t per_subcore() const { return per_subcore_; }
  // The sub-core's resources, per_subcore() of them.
  const uint64_t* of(uint32_t subcore) const { return &free_at_[size_t(subcore) * per_subcore_]; }
  // Resource `i` of the sub-core is free again from `cycle` on.
  void set(uint32_t subcore, uint32_t i, uint64_t cycle) {
    free_at_[size_t(subcore) * per_subcore_ + i] = cycle;
    busy_until_ = std::max(busy_until_, cycle);
  }
  // The first cycle after `now` at which a busy resource is free again (UINT64_MAX: none is busy).
  uint64_t next_free_after(uint64_t now) const {
    if (busy_until_ <= now) return UINT64_MAX;
    uint64_t first = UINT64_MAX;
    for (uint64_t t : free_at_)
      if (t > now && t < first) first = t;
    return first;
  }

 private:
  uint32_t per_subcore_ = 0;
  std::vector<uint64_t> free_at_;  // [subcore * per_subcore_ + resource]
  uint64_t busy_until_ = 0;        // the largest of free_at_
};

}  // namespace lockstep
