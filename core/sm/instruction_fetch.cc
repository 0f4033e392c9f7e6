#include "core/sm/instruction_fetch.h"

#include <algorithm>
#include <bit>

namespace lockstep {

InstructionFetch::InstructionFetch(const SmSpec& spec, SmStats& stats)
    : spec_(spec),
      stats_(stats),
      icache_(spec),
      slots_per_subcore_((spec.max_warps + spec.subcores - 1) / spec.subcores),
      layout_(spec.max_warps, spec.subcores),
      words_per_subcore_((slots_per_subcore_ + 63) / 64) {
  wanting_.assign(size_t(words_per_subcore_) * spec.subcores, 0);
  last_fetched_.assign(spec.subcores, UINT32_MAX);
  filled_.reserve(spec.fetch_per_cycle);
}

void InstructionFetch::warp_changed(uint32_t slot, const WarpState& w) {
  const uint32_t sc = layout_.subcore(slot), index = layout_.index(slot);
  uint64_t& word = wanting_[size_t(sc) * words_per_subcore_ + index / 64];
  const uint64_t bit = uint64_t(1) << (index % 64);
  if (wants_fetch(w)) word |= bit;
  else word &= ~bit;
}

uint32_t InstructionFetch::next_wanting(uint32_t sc, uint32_t from) const {
  const uint64_t* words = &wanting_[size_t(sc) * words_per_subcore_];
  for (uint32_t word = from / 64; word < words_per_subcore_; ++word) {
    uint64_t bits = words[word];
    if (word == from / 64) bits &= ~uint64_t(0) << (from % 64);
    if (bits) return word * 64 + uint32_t(std::countr_zero(bits));
  }
  return UINT32_MAX;
}

uint64_t InstructionFetch::next_unblock(uint64_t now, std::span<const WarpState> warps) const {
  uint64_t next = UINT64_MAX;
  for (uint32_t sc = 0; sc < spec_.subcores; ++sc)
    for (uint32_t word = 0; word < words_per_subcore_; ++word)
      for (uint64_t bits = wanting_[size_t(sc) * words_per_subcore_ + word]; bits != 0; bits &= bits - 1) {
        const uint32_t index = word * 64 + uint32_t(std::countr_zero(bits));
        const WarpState& w = warps[layout_.slot(sc, index)];
        if (!w.fetch_blocked) continue;
        const uint64_t t = w.fetch_blocked_until;
        if (t > now && t < next) next = t;
      }
  return next;
}

InstructionFetch::Outcome InstructionFetch::fetch_for(uint32_t sc, uint32_t index, uint64_t now,
                                                     std::span<WarpState> warps, const KernelProgram& program) {
  const uint32_t slot = layout_.slot(sc, index);
  WarpState& w = warps[slot];
  if (w.fetch_blocked) {
    if (w.fetch_blocked_until > now) return Outcome::kWaiting;
    w.fetch_blocked = false;
  }
  last_fetched_[sc] = index;
  ++attempts_;
  // The I-cache line of the next instruction; the buffer then fills with as many as fit.
  uint64_t ready = now;
  if (icache_.lookup(program[w.insts[w.next_fetch].static_id].pc, now, ready)) {
    ++stats_.icache_hits;
  } else {
    ++stats_.icache_misses;
  }
  if (ready > now) {
    w.fetch_blocked = true;
    w.fetch_blocked_until = ready;
    return Outcome::kMissed;
  }
  // The buffer fills up to ibuffer_entries past the next issue, or the trace's end.
  w.next_fetch = std::max(w.next_fetch, std::min(w.trace_size, w.next_issue + spec_.ibuffer_entries));
  w.fetch_ready = now + 1;
  warp_changed(slot, w);
  filled_.push_back(slot);
  return Outcome::kFilled;
}

void InstructionFetch::fetch_wanting(uint32_t sc, uint64_t now, std::span<WarpState> warps,
                                     const KernelProgram& program) {
  // Round robin over the sub-core's slots from the one after the last warp
  // fetched for, visiting only the warps that want to fetch (in slot order).
  const uint32_t last = last_fetched_[sc];
  const uint32_t start = last == UINT32_MAX ? 0 : last + 1;
  uint32_t fetched = 0;
  if (words_per_subcore_ == 1) {
    // One word: the wanting bits rotated right to start at `start` are the visiting order.
    const uint32_t shift = start % 64;
    for (uint64_t bits = std::rotr(wanting_[sc], int(shift)); bits != 0 && fetched < spec_.fetch_per_cycle;) {
      const uint32_t k = uint32_t(std::countr_zero(bits));
      const Outcome outcome = fetch_for(sc, (k + shift) % 64, now, warps, program);
      if (outcome == Outcome::kMissed) return;
      fetched += outcome == Outcome::kFilled;
      bits &= ~((uint64_t(2) << k) - 1);  // (k = 63: 2 << 63 wraps to 0, clearing all)
    }
    return;
  }
  uint32_t index = next_wanting(sc, start);
  bool wrapped = false;
  if (index == UINT32_MAX) {
    index = next_wanting(sc, 0);
    wrapped = true;
  }
  while (index != UINT32_MAX && fetched < spec_.fetch_per_cycle) {
    if (wrapped && index >= start) break;  // every wanting warp visited once
    const Outcome outcome = fetch_for(sc, index, now, warps, program);
    if (outcome == Outcome::kMissed) return;
    fetched += outcome == Outcome::kFilled;
    index = next_wanting(sc, index + 1);
    if (index == UINT32_MAX && !wrapped) {
      index = next_wanting(sc, 0);
      wrapped = true;
    }
  }
}

}  // namespace lockstep
