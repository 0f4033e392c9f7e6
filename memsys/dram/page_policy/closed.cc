// Closed page policy: every column command is RDA / WRA, the bank
// precharging itself at the first cycle tRAS and tRTPL (reads) or tWR after
// the write data (writes) allow.
#include <algorithm>

#include "memsys/dram_channel.h"

namespace lockstep {

void DramChannel::closed_page_after_column(const DramRequest& r, uint64_t now) {
  DramBank& bank = banks_[r.bank];
  close_row(r.bank);
  bank.next_act = std::max(bank.next_act, bank.next_pre + spec_.tRP);
  ++stats_[r.stat_slot].precharges;
  log(now, r.write ? DramCommandType::kWriteAutoPrecharge : DramCommandType::kReadAutoPrecharge, r.bank, r.row);
}

}  // namespace lockstep
