#include "parallel/gpu_pieces.h"

#include <algorithm>

namespace lockstep {

void SmClusterPiece::run(uint64_t now) {
  const unsigned parity = reply_stages_ && reply_ports_[0] ? reply_ports_[0]->receive_parity() : 0;
  const uint32_t first_word = first_ / 64;
  for (uint32_t w = first_word; w <= (last_ - 1) / 64; ++w) {
    const uint64_t mask = word_mask(w);
    uint64_t& visit = visit_word(w - first_word);
    // The reply ports marked as staged into in the last cycle.
    // (Read only: the reply crossbar clears them, so clusters on different
    // threads never write the word they share.)
    const uint64_t staged = reply_stages_ ? reply_stages_->peek(parity, w, mask) : mask;
    uint64_t next = 0;
    for (uint64_t bits = visit | staged | offers_.take(0, w, mask); bits != 0; bits &= bits - 1) {
      const uint32_t bit = uint32_t(std::countr_zero(bits));
      if (run_sm(w * 64 + bit, now, staged >> bit & 1)) next |= uint64_t(1) << bit;
    }
    visit = reply_stages_ ? next : mask;
  }
}

inline bool SmClusterPiece::run_sm(uint32_t s, uint64_t now, bool staged) {
  SmModel& sm = *sms_[s];
  // The SM consumes its reply port: it takes in last cycle's replies
  // first and publishes its pops last, every cycle it is visited.
  LatchedQueue<MemPacket>* replies = reply_ports_[s - first_];
  if (replies && staged) replies->receive();
  // An SM with no block and none offered is not ticked (its tick would
  // return false at once). (The test switch skips some ticks of busy SMs.)
  const bool offered = sm.has_offered_block();
  const bool skipped_for_tests =
      unlatched_coupling_ && !offered && (sms_[(s + 1) % sms_.size()]->stats().warp_insts & 1);
  const bool held_blocks = (sm.busy() || offered) && (skipped_for_tests || sm.tick(now));
  if (replies) replies->publish_pops();
  SmView& view = views_[s];
  // An SM that held no block all cycle took none and retired none: its view
  // stands, but for the retirements of the cycle before.
  if (!held_blocks && view.retired == 0) return false;
  const SmModel::Residency residency = sm.residency();
  if (!(view.residency == residency)) {
    view.residency = residency;
    views_changed_ = true;
  }
  // Every retirement is news to the dispatcher, also one that leaves the
  // view as it was (the SM took a block and retired one in the same cycle,
  // as in the cycle before): it counts retirements only in cycles in which
  // a view changed.
  const uint32_t retired = sm.take_retired_blocks();
  if (retired || view.retired != retired) {
    view.retired = retired;
    views_changed_ = true;
  }
  // Visited again while it holds blocks, and once more after a retirement
  // (its view's count goes back to 0; its last pops are published again).
  return held_blocks || retired != 0;
}

uint64_t SmClusterPiece::quiet_until(uint64_t now) const {
  // The SM that was not quiet last time mostly is not now either: asked
  // first, it mostly ends the search at once. Only the SMs to visit in the
  // next cycle are asked: any other holds no block (UINT64_MAX).
  const uint32_t hint = awake_hint_, first_word = first_ / 64;
  uint64_t quiet = sms_[hint]->quiet_until(now);
  for (uint32_t w = first_word; w <= (last_ - 1) / 64; ++w)
    for (uint64_t bits = visit_word(w - first_word); bits != 0 && quiet > now + 1; bits &= bits - 1) {
      const uint32_t s = w * 64 + uint32_t(std::countr_zero(bits));
      if (s == hint) continue;
      quiet = std::min(quiet, sms_[s]->quiet_until(now));
      if (quiet <= now + 1) awake_hint_ = s;
    }
  return quiet;
}

}  // namespace lockstep
