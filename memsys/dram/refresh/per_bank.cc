// Per-bank refresh (HBM REFSB, dram.per_bank_refresh): every dram.tREFI /
// dram.banks the next bank in rotation is precharged and refreshed for
// dram.tRFC; the other banks keep working.
#include "memsys/dram_channel.h"

namespace lockstep {

bool DramChannel::per_bank_refresh_step(uint64_t now) {
  // Close the bank in rotation, then refresh it alone.
  DramBank& bank = banks_[refresh_bank_];
  if (bank.open) {
    if (now < bank.next_pre) return false;
    precharge(refresh_bank_, 0, now);
    return true;
  }
  if (now < bank.next_act) return false;
  refresh_bank(refresh_bank_, now);
  return true;
}

void DramChannel::refresh_bank(uint32_t b, uint64_t now) {
  banks_[b].next_act = now + spec_.tRFC;
  --refresh_pending_;
  refresh_bank_ = (refresh_bank_ + 1) % spec_.banks;
  ++stats_[0].refreshes;
  log(now, DramCommandType::kRefresh, b, 0);
}

}  // namespace lockstep
