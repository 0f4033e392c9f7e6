// FR-FCFS DRAM scheduler (fr_fcfs.h): the column pick, once per DRAM cycle.
#include "memsys/dram/scheduler/fr_fcfs.h"

namespace lockstep {

// The oldest request whose row is open and whose column command can issue
// now; within a bank that is its oldest read or oldest write to the open
// row, so only those are looked at.
DramChannel::ColumnPick DramChannel::fr_fcfs_column(RequestQueue& queue, uint64_t now, uint32_t refreshing) {
  ColumnPick pick;
  uint64_t oldest = UINT64_MAX;
  const bool column_free = now >= next_column_;
  const bool read_free = column_free && now >= next_channel_read_ && now + spec_.tCL >= bus_free_at_ &&
                         return_count_ < returns_.size();
  const bool write_free = column_free && now >= next_channel_write_ && now + spec_.tWL >= bus_free_at_;
  if (!read_free && !write_free) return pick;
  for (uint32_t b = 0, group = 0; b < spec_.banks; ++b, group = group + 1 == spec_.bank_groups ? 0 : group + 1) {
    const DramBank& bank = banks_[b];
    if (queue.head_seq[b] == UINT64_MAX || !bank.open || b == refreshing || now < next_column_in_group_[group])
      continue;
    const BankHits& h = hits_of(queue, b);
    if (read_free && h.read_seq < oldest && now >= bank.next_read) {
      oldest = h.read_seq;
      pick = ColumnPick{b, h.read};
    }
    if (write_free && h.write_seq < oldest && now >= bank.next_write) {
      oldest = h.write_seq;
      pick = ColumnPick{b, h.write};
    }
  }
  return pick;
}

}  // namespace lockstep
