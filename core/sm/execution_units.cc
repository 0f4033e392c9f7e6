#include "core/sm/execution_units.h"

#include <algorithm>

namespace lockstep {

ExecutionUnits::ExecutionUnits(const SmSpec& spec) : spec_(spec) {
  size_t pipes = 0;
  for (const UnitSpec& u : spec.units) {
    first_pipe_.push_back(uint32_t(pipes));
    pipes_.push_back(std::max(u.per_subcore, 1u));
    pipes += pipes_.back();
  }
  free_at_ = SubcoreFreeCycles(spec.subcores, uint32_t(pipes));
}

}  // namespace lockstep
