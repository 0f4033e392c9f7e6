#include "core/sm/operand_collector.h"

#include <algorithm>

namespace lockstep {

OperandCollector::OperandCollector(const SmSpec& spec)
    : banks_(std::clamp(spec.reg_banks, 1u, 64u)), units_per_subcore_(std::max(spec.collector_units, 1u)) {
  free_at_.assign(size_t(spec.subcores) * units_per_subcore_, 0);
}

void OperandCollector::claim(uint32_t subcore, uint64_t now, uint32_t conflict_cycles) {
  uint64_t* units = &free_at_[size_t(subcore) * units_per_subcore_];
  uint64_t* unit = std::find_if(units, units + units_per_subcore_, [now](uint64_t t) { return t <= now; });
  *unit = now + 1 + conflict_cycles;
  busy_until_ = std::max(busy_until_, *unit);
}

uint32_t OperandCollector::bank_conflict_cycles(const TimedInstruction& ti) const {
  return register_bank_conflict_cycles(ti, banks_);
}

}  // namespace lockstep
