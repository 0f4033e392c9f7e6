#pragma once
// The scoreboard of one warp: the registers with a result still in flight.
// An instruction may issue only when none of its sources and destinations is
// pending; issue marks its destinations, writeback clears them. Each warp's
// scoreboard sits in its WarpState (core/sm/warp_state.h), next to the state
// issue reads with it.
#include <bitset>
#include <cstdint>

#include "core/kernel_program.h"
#include "core/register_id.h"

namespace lockstep {

class Scoreboard {
 public:
  void clear() { pending_.reset(); }
  // A source or destination of `ti` is still pending.
  bool blocks(const TimedInstruction& ti) const {
    for (uint32_t i = 0; i < ti.num_srcs; ++i)
      if (pending_[ti.srcs[i]]) return true;
    for (uint32_t i = 0; i < ti.num_dsts; ++i)
      if (pending_[ti.dsts[i]]) return true;
    return false;
  }
  void reserve(const TimedInstruction& ti) {
    for (uint32_t i = 0; i < ti.num_dsts; ++i) pending_.set(ti.dsts[i]);
  }
  void release(const TimedInstruction& ti) {
    for (uint32_t i = 0; i < ti.num_dsts; ++i) pending_.reset(ti.dsts[i]);
  }
  bool pending(uint16_t reg) const { return pending_[reg]; }

 private:
  std::bitset<kNumScoreboardRegs> pending_;
};

}  // namespace lockstep
