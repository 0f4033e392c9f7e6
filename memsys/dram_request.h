#pragma once
// What an L2 slice asks of its DRAM channel: one 32 B column access (read a
// sector, or write back a dirty sector), with the address already decoded by
// the AddressMap into the channel's bank, row and column.
#include <cstdint>

namespace lockstep {

struct DramRequest {
  uint64_t addr = 0;       // sector-aligned byte address (for the slice to match the fill)
  uint32_t bank = 0;       // bank inside the channel, 0 .. dram.banks - 1 (bank group = bank % bank_groups)
  uint32_t row = 0;        // row inside the bank
  uint32_t column = 0;     // column (32 B unit) inside the row
  uint32_t subpartition = 0;  // the L2 slice of the channel that asked (replies go back to it)
  bool write = false;      // write back (no reply) or read (reply when the data has arrived)
  uint8_t stat_slot = 0;   // statistics slot of the kernel that caused the access
};

}  // namespace lockstep
