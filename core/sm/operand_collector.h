#pragma once
// The operand collector of each sub-core: collector units gather an
// instruction's source operands from the register-file banks. A unit is busy
// one cycle plus one per bank conflict (each bank delivers one operand per
// cycle); the conflict cycles also delay the result.
#include <cstdint>
#include <vector>

#include "core/kernel_program.h"
#include "configs/spec/sm_spec.h"
#include "core/sm/free_cycles.h"

namespace lockstep {

class OperandCollector {
 public:
  explicit OperandCollector(const SmSpec& spec);

  // A collector unit of `subcore` is free at `now`.
  bool available(uint32_t subcore, uint64_t now) const {
    const uint64_t* units = free_at_.of(subcore);
    for (uint32_t u = 0; u < free_at_.per_subcore(); ++u)
      if (units[u] <= now) return true;
    return false;
  }
  // Claims the first free unit of `subcore` (requires available()) for `ti`
  // (of a KernelProgram of this SM's spec: its bank-conflict cycles are
  // resolved); returns the bank-conflict cycles it costs.
  uint32_t collect(uint32_t subcore, uint64_t now, const TimedInstruction& ti) {
    const uint32_t extra = ti.bank_conflict_cycles;
    claim(subcore, now, extra);
    return extra;
  }
  // The same for an instruction whose bank-conflict cycles are known.
  void claim(uint32_t subcore, uint64_t now, uint32_t conflict_cycles);
  // Extra cycles reading `ti`'s sources takes (register_bank_conflict_cycles).
  uint32_t bank_conflict_cycles(const TimedInstruction& ti) const;
  // The first cycle after `now` at which a busy collector unit is free again (UINT64_MAX: none is busy).
  uint64_t next_free_after(uint64_t now) const { return free_at_.next_free_after(now); }

 private:
  uint32_t banks_;  // sm.reg_banks, within 1..64
  SubcoreFreeCycles free_at_;  // per sub-core and collector unit (sm.collector_units, at least 1): the cycle it is free again
};

}  // namespace lockstep
