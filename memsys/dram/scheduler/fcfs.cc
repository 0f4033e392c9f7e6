// FCFS DRAM scheduler (fcfs.h): the column pick, once per DRAM cycle.
#include "memsys/dram/scheduler/fcfs.h"

#include "memsys/bit_set.h"

namespace lockstep {

// Only the oldest request of the queue may read or write (none while its bank is refreshing).
DramChannel::ColumnPick DramChannel::fcfs_column(const RequestQueue& queue, uint64_t now, uint32_t refreshing) const {
  uint64_t oldest = UINT64_MAX;
  uint32_t first = DramCommand::kAllBanks;
  for_each_set_bit(queue.waiting_banks, 0, queue.waiting_banks.size(), [&](uint32_t b) {
    if (queue.head_seq[b] < oldest) {
      oldest = queue.head_seq[b];
      first = b;
    }
  });
  if (first != DramCommand::kAllBanks && first != refreshing && column_ready(queue.by_bank[first].front(), now))
    return ColumnPick{first, 0};
  return ColumnPick{};
}

}  // namespace lockstep
