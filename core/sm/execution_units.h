#pragma once
// The execution units of each sub-core: per unit class (SmSpec::units) its
// pipelines; a pipeline that accepts an instruction at t accepts the next at
// t + initiation. Results come back after the class's latency (writeback).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "configs/spec/sm_spec.h"
#include "core/sm/free_cycles.h"

namespace lockstep {

class ExecutionUnits {
 public:
  static constexpr size_t kNone = SIZE_MAX;
  explicit ExecutionUnits(const SmSpec& spec);

  // The first pipeline of class `unit` in sub-core `subcore` that accepts at `now`, else kNone.
  size_t free_pipeline(uint32_t subcore, uint32_t unit, uint64_t now) const {
    const size_t base = first_pipe_[unit], end = base + pipes_[unit];
    const uint64_t* free_at = free_at_.of(subcore);
    for (size_t p = base; p < end; ++p)
      if (free_at[p] <= now) return p;
    return kNone;
  }
  // An instruction enters `pipeline` at `now`.
  void occupy(uint32_t subcore, size_t pipeline, uint32_t unit, uint64_t now) {
    free_at_.set(subcore, uint32_t(pipeline), now + spec_.units[unit].initiation);
  }
  // The first cycle after `now` at which a busy pipeline accepts again (UINT64_MAX: none is busy).
  uint64_t next_free_after(uint64_t now) const { return free_at_.next_free_after(now); }

 private:
  const SmSpec& spec_;
  std::vector<uint32_t> first_pipe_;            // unit class -> its first pipeline index
  std::vector<uint32_t> pipes_;                 // unit class -> its pipelines (at least 1)
  SubcoreFreeCycles free_at_;  // per sub-core and pipeline: the cycle it accepts again
};

}  // namespace lockstep
