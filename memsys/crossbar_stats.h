#pragma once
// Counters of one interconnect subnet (memsys/crossbar.h), per statistics
// slot. A request crossbar counts request_*, a reply crossbar reply_*; both
// count stall cycles.
#include <array>
#include <cstdint>

#include "memsys/stat_fields.h"

namespace lockstep {

struct CrossbarStats {
  uint64_t request_packets = 0;  // SM -> L2 packets delivered
  uint64_t request_flits = 0;
  uint64_t reply_packets = 0;    // L2 -> SM packets delivered
  uint64_t reply_flits = 0;
  uint64_t stall_cycles = 0;     // cycles a packet at an input could not advance (output busy or full)

  static constexpr auto fields() {
    return std::to_array<StatField<CrossbarStats>>({
        {"lockstep__icnt_request_packets", &CrossbarStats::request_packets},
        {"lockstep__icnt_request_flits", &CrossbarStats::request_flits},
        {"lockstep__icnt_reply_packets", &CrossbarStats::reply_packets},
        {"lockstep__icnt_reply_flits", &CrossbarStats::reply_flits},
        {"lockstep__icnt_stall_cycles", &CrossbarStats::stall_cycles},
    });
  }
  CrossbarStats& operator+=(const CrossbarStats& o) { return add_stat_fields(*this, o); }
  bool operator==(const CrossbarStats&) const = default;
};

}  // namespace lockstep
