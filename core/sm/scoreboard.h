#pragma once
// The scoreboard: per warp slot, the registers with a result still in
// flight. An instruction may issue only when none of its sources and
// destinations is pending; issue marks its destinations, writeback clears them.
#include <bitset>
#include <cstdint>
#include <vector>

#include "core/kernel_program.h"
#include "core/register_id.h"

namespace lockstep {

class Scoreboard {
 public:
  explicit Scoreboard(uint32_t warp_slots) : pending_(warp_slots) {}

  void clear(uint32_t slot) { pending_[slot].reset(); }
  // A source or destination of `ti` is still pending for the warp in `slot`.
  bool blocks(uint32_t slot, const TimedInstruction& ti) const {
    const std::bitset<kNumScoreboardRegs>& p = pending_[slot];
    for (uint32_t i = 0; i < ti.num_srcs; ++i)
      if (p[ti.srcs[i]]) return true;
    for (uint32_t i = 0; i < ti.num_dsts; ++i)
      if (p[ti.dsts[i]]) return true;
    return false;
  }
  void reserve(uint32_t slot, const TimedInstruction& ti) {
    for (uint32_t i = 0; i < ti.num_dsts; ++i) pending_[slot].set(ti.dsts[i]);
  }
  void release(uint32_t slot, const TimedInstruction& ti) {
    for (uint32_t i = 0; i < ti.num_dsts; ++i) pending_[slot].reset(ti.dsts[i]);
  }
  bool pending(uint32_t slot, uint16_t reg) const { return pending_[slot][reg]; }

 private:
  std::vector<std::bitset<kNumScoreboardRegs>> pending_;
};

}  // namespace lockstep
