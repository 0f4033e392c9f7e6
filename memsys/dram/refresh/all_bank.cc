// All-bank refresh (GDDR): every dram.tREFI new commands stop, open banks are
// precharged, then one REF blocks every bank for dram.tRFC.
#include "memsys/dram/refresh/refresh_clock.h"
#include "memsys/dram_channel.h"

namespace lockstep {

// JEDEC lets a controller owe up to 8 refreshes.
RefreshTiming all_bank_refresh_timing(const DramSpec& spec) { return RefreshTiming{spec.tREFI, 8}; }

DramChannel::RefreshStep DramChannel::all_bank_refresh_step(uint64_t now) {
  // Precharge open banks (lowest index first), then REF once every bank
  // could accept an ACT (tRP after its PRE, tRC after its ACT). While a
  // refresh is owed no other command issues.
  RefreshStep step;
  step.holds_channel = true;
  bool all_ready = true;
  for (uint32_t b = 0; b < spec_.banks; ++b) {
    const DramBank& bank = banks_[b];
    if (bank.open) {
      if (now >= bank.next_pre) {
        precharge(b, 0, now);
        step.used_row_slot = true;
        return step;
      }
      all_ready = false;
    } else if (now < bank.next_act) {
      all_ready = false;
    }
  }
  if (!all_ready) return step;
  refresh_all(now);
  step.used_row_slot = true;
  step.holds_channel = refresh_clock_.owed() != 0;
  return step;
}

void DramChannel::refresh_all(uint64_t now) {
  for (DramBank& bank : banks_) bank.next_act = now + spec_.tRFC;
  refresh_clock_.paid();
  ++stats_[0].refreshes;
  log(now, DramCommandType::kRefresh, DramCommand::kAllBanks, 0);
}

}  // namespace lockstep
