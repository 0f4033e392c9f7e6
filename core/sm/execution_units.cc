#include "core/sm/execution_units.h"

#include <algorithm>

namespace lockstep {

ExecutionUnits::ExecutionUnits(const SmSpec& spec) : spec_(spec) {
  size_t pipes = 0;
  for (const UnitSpec& u : spec.units) {
    first_pipe_.push_back(uint32_t(pipes));
    pipes += std::max(u.per_subcore, 1u);
  }
  free_at_.assign(spec.subcores, std::vector<uint64_t>(pipes, 0));
}

size_t ExecutionUnits::free_pipeline(uint32_t subcore, uint32_t unit, uint64_t now) const {
  const size_t base = first_pipe_[unit];
  const std::vector<uint64_t>& free_at = free_at_[subcore];
  for (size_t p = base; p < base + std::max(spec_.units[unit].per_subcore, 1u); ++p)
    if (free_at[p] <= now) return p;
  return kNone;
}

}  // namespace lockstep
