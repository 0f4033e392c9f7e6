// Per-bank refresh (HBM REFSB, dram.per_bank_refresh): every dram.tREFI /
// dram.banks the next bank in rotation is precharged and refreshed for
// dram.tRFC; the other banks keep working.
#include <algorithm>

#include "memsys/dram/refresh/refresh_clock.h"
#include "memsys/dram_channel.h"

namespace lockstep {

// One bank every tREFI / banks; at most one round of the rotation owed.
RefreshTiming per_bank_refresh_timing(const DramSpec& spec) {
  return RefreshTiming{std::max<uint32_t>(1, spec.tREFI / spec.banks), spec.banks};
}

DramChannel::RefreshStep DramChannel::per_bank_refresh_step(uint64_t now) {
  // Close the bank in rotation, then refresh it alone; while it owes its
  // refresh it takes no new commands.
  RefreshStep step;
  DramBank& bank = banks_[refresh_bank_];
  if (bank.open) {
    if (now >= bank.next_pre) {
      precharge(refresh_bank_, 0, now);
      step.used_row_slot = true;
    }
  } else if (now >= bank.next_act) {
    refresh_bank(refresh_bank_, now);
    step.used_row_slot = true;
  }
  if (refresh_clock_.owed() != 0) step.refreshing = refresh_bank_;
  return step;
}

void DramChannel::refresh_bank(uint32_t b, uint64_t now) {
  banks_[b].next_act = now + spec_.tRFC;
  refresh_clock_.paid();
  refresh_bank_ = (refresh_bank_ + 1) % spec_.banks;
  ++stats_[0].refreshes;
  log(now, DramCommandType::kRefresh, b, 0);
}

}  // namespace lockstep
