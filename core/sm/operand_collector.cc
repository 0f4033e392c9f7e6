#include "core/sm/operand_collector.h"

#include <algorithm>

namespace lockstep {

OperandCollector::OperandCollector(const SmSpec& spec) : banks_(std::clamp(spec.reg_banks, 1u, 64u)) {
  free_at_.assign(spec.subcores, std::vector<uint64_t>(std::max(spec.collector_units, 1u), 0));
}

void OperandCollector::claim(uint32_t subcore, uint64_t now, uint32_t conflict_cycles) {
  std::vector<uint64_t>& units = free_at_[subcore];
  auto unit = std::find_if(units.begin(), units.end(), [now](uint64_t t) { return t <= now; });
  *unit = now + 1 + conflict_cycles;
}

uint32_t OperandCollector::bank_conflict_cycles(const TimedInstruction& ti) const {
  return register_bank_conflict_cycles(ti, banks_);
}

}  // namespace lockstep
