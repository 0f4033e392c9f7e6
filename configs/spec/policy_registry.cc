#include "configs/spec/policy_registry.h"

namespace lockstep {

DramRefresh dram_refresh(const DramSpec& spec) {
  if (spec.tREFI == 0) return DramRefresh::kNone;
  return spec.per_bank_refresh ? DramRefresh::kPerBank : DramRefresh::kAllBank;
}

}  // namespace lockstep
