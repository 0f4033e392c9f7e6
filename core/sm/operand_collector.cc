#include "core/sm/operand_collector.h"

#include <algorithm>

namespace lockstep {

OperandCollector::OperandCollector(const SmSpec& spec)
    : banks_(std::clamp(spec.reg_banks, 1u, 64u)), free_at_(spec.subcores, std::max(spec.collector_units, 1u)) {}

void OperandCollector::claim(uint32_t subcore, uint64_t now, uint32_t conflict_cycles) {
  const uint64_t* units = free_at_.of(subcore);
  const uint64_t* unit = std::find_if(units, units + free_at_.per_subcore(), [now](uint64_t t) { return t <= now; });
  free_at_.set(subcore, uint32_t(unit - units), now + 1 + conflict_cycles);
}

uint32_t OperandCollector::bank_conflict_cycles(const TimedInstruction& ti) const {
  return register_bank_conflict_cycles(ti, banks_);
}

}  // namespace lockstep
