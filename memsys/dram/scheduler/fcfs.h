#pragma once
// FCFS DRAM scheduler: column commands strictly in arrival order; row
// commands may prepare each bank for its oldest request ahead of time. The
// column pick is in fcfs.cc; the row rule, asked per bank per DRAM cycle, is
// here, inline (included by dram_channel.cc only).
#include "memsys/dram_channel.h"

namespace lockstep {

// A row stays open only while the bank's oldest request hits it.
inline bool DramChannel::fcfs_keeps_row(const RequestQueue& queue, uint32_t bank) const {
  return banks_[bank].holds(queue.by_bank[bank].front().request.row);
}

}  // namespace lockstep
