// All-bank refresh (GDDR): every dram.tREFI new commands stop, open banks are
// precharged, then one REF blocks every bank for dram.tRFC. (dram.tREFI = 0:
// no refresh is ever due.)
#include "memsys/dram_channel.h"

namespace lockstep {

bool DramChannel::all_bank_refresh_step(uint64_t now) {
  // Precharge open banks (lowest index first), then REF once every bank
  // could accept an ACT (tRP after its PRE, tRC after its ACT).
  bool all_ready = true;
  for (uint32_t b = 0; b < spec_.banks; ++b) {
    const DramBank& bank = banks_[b];
    if (bank.open) {
      if (now >= bank.next_pre) {
        precharge(b, 0, now);
        return true;
      }
      all_ready = false;
    } else if (now < bank.next_act) {
      all_ready = false;
    }
  }
  if (!all_ready) return false;
  refresh_all(now);
  return true;
}

void DramChannel::refresh_all(uint64_t now) {
  for (DramBank& bank : banks_) bank.next_act = now + spec_.tRFC;
  --refresh_pending_;
  ++stats_[0].refreshes;
  log(now, DramCommandType::kRefresh, DramCommand::kAllBanks, 0);
}

}  // namespace lockstep
