#pragma once
// The execution units of each sub-core: per unit class (SmSpec::units) its
// pipelines; a pipeline that accepts an instruction at t accepts the next at
// t + initiation. Results come back after the class's latency (writeback).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "configs/spec/sm_spec.h"
#include "core/sm/first_after.h"

namespace lockstep {

class ExecutionUnits {
 public:
  static constexpr size_t kNone = SIZE_MAX;
  explicit ExecutionUnits(const SmSpec& spec);

  // The first pipeline of class `unit` in sub-core `subcore` that accepts at `now`, else kNone.
  size_t free_pipeline(uint32_t subcore, uint32_t unit, uint64_t now) const {
    const size_t base = first_pipe_[unit], end = base + pipes_[unit];
    const uint64_t* free_at = &free_at_[size_t(subcore) * pipes_per_subcore_];
    for (size_t p = base; p < end; ++p)
      if (free_at[p] <= now) return p;
    return kNone;
  }
  // An instruction enters `pipeline` at `now`.
  void occupy(uint32_t subcore, size_t pipeline, uint32_t unit, uint64_t now) {
    const uint64_t free_at = now + spec_.units[unit].initiation;
    free_at_[size_t(subcore) * pipes_per_subcore_ + pipeline] = free_at;
    busy_until_ = std::max(busy_until_, free_at);
  }
  // The first cycle after `now` at which a busy pipeline accepts again (UINT64_MAX: none is busy).
  uint64_t next_free_after(uint64_t now) const { return busy_until_ <= now ? UINT64_MAX : first_after(free_at_, now); }

 private:
  const SmSpec& spec_;
  std::vector<uint32_t> first_pipe_;            // unit class -> its first pipeline index
  std::vector<uint32_t> pipes_;                 // unit class -> its pipelines (at least 1)
  size_t pipes_per_subcore_ = 0;
  std::vector<uint64_t> free_at_;  // [subcore * pipes_per_subcore_ + pipeline]: cycle it accepts again
  uint64_t busy_until_ = 0;        // the largest of free_at_
};

}  // namespace lockstep
