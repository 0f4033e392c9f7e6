// FR-FCFS DRAM scheduler (fr_fcfs.h): the column pick, once per DRAM cycle.
#include "memsys/dram/scheduler/fr_fcfs.h"

#include <bit>

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
  // The banks with requests and an open row, in bank order.
  for (size_t w = 0; w < open_banks_.size(); ++w) {
    for (uint64_t bits = queue.waiting_banks[w] & open_banks_[w]; bits != 0; bits &= bits - 1) {
      const uint32_t b = uint32_t(w * 64) + uint32_t(std::countr_zero(bits));
      if (b == refreshing || now < next_column_in_group_[group_of(b)]) continue;
      const DramBank& bank = banks_[b];
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
  }
  return pick;
}

}  // namespace lockstep
