#pragma once
// The state of one DRAM bank inside a channel: which row its sense amplifiers
// hold (if any), and the earliest DRAM command cycle at which each command may
// next be issued to it. The channel (dram_channel.h) applies the timing rules
// and advances these times; the bank only records them. Times are absolute
// DRAM command-clock cycles.
#include <cstdint>

namespace lockstep {

struct DramBank {
  bool open = false;        // a row is activated (held in the row buffer)
  uint32_t row = 0;         // the open row (meaningful only when open)
  uint64_t act_owner = 0;   // sequence number of the request the open row was activated for
  uint64_t next_act = 0;    // earliest ACT (tRC after ACT, tRP after PRE, tRFC after REF)
  uint64_t next_pre = 0;    // earliest PRE (tRAS after ACT, tRTPL after RD, tWR after write data)
  uint64_t next_read = 0;   // earliest RD (tRCD after ACT)
  uint64_t next_write = 0;  // earliest WR (tRCDWR after ACT)

  bool holds(uint32_t r) const { return open && row == r; }
};

}  // namespace lockstep
