#pragma once
// The warps of each sub-core that issue could pick, as bit sets over the
// warp's index within its sub-core (slot = sub-core + index * sub-cores), so
// that a cycle's issue visits only them instead of every resident warp.
//
// A warp is a candidate when it is active, has a fetched instruction, is not
// at a barrier and is not known to wait on the scoreboard (the conditions
// issue checks first, with no side effect). Per sub-core there is also one
// bit set per issue resource (the LD/ST unit and each unit class, as in
// Sm::issue's resource mask): the warps whose next instruction needs it, so
// that a resource refused this cycle excludes all of its warps at once.
// The owner calls update() whenever one of those fields of a warp changes.
#include <bit>
#include <cstdint>
#include <vector>

#include "core/sm/slot_layout.h"
#include "core/sm/warp_state.h"

namespace lockstep {

class IssueCandidates {
 public:
  // `resources`: the number of resource bits (bit r of a resource mask).
  IssueCandidates(uint32_t warps, uint32_t subcores, uint32_t resources)
      : layout_(warps, subcores),
        resources_(resources),
        words_((((warps + subcores - 1) / subcores) + 63) / 64),
        ready_(size_t(subcores) * words_, 0),
        needs_(size_t(subcores) * words_ * resources, 0),
        resource_of_(warps, 0),
        changed_(subcores, 1) {}

  [[gnu::always_inline]] void update(uint32_t slot, const WarpState& w) {
    const uint32_t sc = layout_.subcore(slot), index = layout_.index(slot);
    changed_[sc] = 1;
    const size_t word = size_t(sc) * words_ + index / 64;
    const uint64_t bit = uint64_t(1) << (index % 64);
    const bool ready = w.active && w.next_issue < w.next_fetch && !w.at_barrier && !w.scoreboard_blocked;
    if (ready) ready_[word] |= bit;
    else ready_[word] &= ~bit;
    if (resource_of_[slot] != w.next_resource) {
      for_each_bit(resource_of_[slot], [&](uint32_t r) { needs_[word * resources_ + r] &= ~bit; });
      for_each_bit(w.next_resource, [&](uint32_t r) { needs_[word * resources_ + r] |= bit; });
      resource_of_[slot] = w.next_resource;
    }
  }

  // Whether the warp in `slot` is a candidate whose next instruction needs none of the resources in `blocked`.
  bool eligible(uint32_t slot, uint32_t blocked) const {
    const uint32_t sc = layout_.subcore(slot), index = layout_.index(slot);
    return (ready_[size_t(sc) * words_ + index / 64] >> (index % 64) & 1) && !(resource_of_[slot] & blocked);
  }

  // Sub-core `sc` has no candidate and no warp of it was updated since
  // settle(sc): its issue would find what it found then.
  bool unchanged_without_candidates(uint32_t sc) const { return unchanged_all_needing(sc, 0); }
  // No warp of sub-core `sc` was updated since settle(sc), and each of its
  // candidates needs one of `resources` (with none: it has no candidate).
  bool unchanged_all_needing(uint32_t sc, uint32_t resources) const {
    if (changed_[sc]) return false;
    for (uint32_t word = 0; word < words_; ++word)
      if (eligible_word(sc, word, resources) != 0) return false;
    return true;
  }
  // Something issue reads of sub-core `sc` changed other than through update().
  void touch(uint32_t sc) { changed_[sc] = 1; }
  // Issue has seen sub-core `sc` as it is now.
  void settle(uint32_t sc) { changed_[sc] = 0; }

  // Each sub-core's warps fit one word (at most 64 per sub-core).
  bool single_word() const { return words_ == 1; }

  // Word `word` of sub-core `sc`'s candidates (bit i: index word * 64 + i)
  // whose next instruction needs none of the resources in `blocked`.
  uint64_t eligible_word(uint32_t sc, uint32_t word, uint32_t blocked) const {
    const size_t at = size_t(sc) * words_ + word;
    uint64_t bits = ready_[at];
    for_each_bit(blocked, [&](uint32_t r) { bits &= ~needs_[at * resources_ + r]; });
    return bits;
  }

 private:
  template <class F>
  static void for_each_bit(uint32_t mask, F&& f) {
    for (; mask != 0; mask &= mask - 1) f(uint32_t(std::countr_zero(mask)));
  }

  SlotLayout layout_;
  uint32_t resources_, words_;
  std::vector<uint64_t> ready_;         // per sub-core word
  std::vector<uint64_t> needs_;         // per sub-core word, per resource
  std::vector<uint32_t> resource_of_;   // per slot: the resource mask its bits in needs_ stand for
  std::vector<uint8_t> changed_;        // per sub-core: a warp of it was updated since settle()
};

}  // namespace lockstep
