#pragma once
// FR-FCFS DRAM scheduler (Rixner et al., ISCA 2000; GPGPU-Sim's
// dram_sched.cc): row hits first, then the oldest request. The column pick
// is in fr_fcfs.cc; the row rule, asked per bank per DRAM cycle, is here,
// inline (included by dram_channel.cc only).
#include "memsys/dram_channel.h"

namespace lockstep {

// A row stays open while any queued request hits it.
inline bool DramChannel::fr_fcfs_keeps_row(RequestQueue& queue, uint32_t bank) {
  if (!banks_[bank].open) return false;
  const BankHits& h = hits_of(queue, bank);
  return h.read >= 0 || h.write >= 0;
}

}  // namespace lockstep
