#include "core/sm/instruction_fetch.h"

#include <algorithm>

namespace lockstep {

InstructionFetch::InstructionFetch(const SmSpec& spec, SmStats& stats) : spec_(spec), stats_(stats), icache_(spec) {
  last_fetched_.assign(spec.subcores, UINT32_MAX);
}

void InstructionFetch::fetch(uint32_t sc, uint64_t now, std::span<WarpState> warps, std::span<const uint32_t> resident,
                             const KernelProgram& program) {
  // Round robin over the sub-core's slots from the one after the last warp
  // fetched for; only resident warps can fetch, so the walk visits those
  // (`resident`, in slot order) and never reads an empty slot's state.
  const uint32_t last = last_fetched_[sc];
  size_t start = 0;
  if (last != UINT32_MAX)
    start = size_t(std::upper_bound(resident.begin(), resident.end(), sc + last * spec_.subcores) - resident.begin());
  uint32_t fetched = 0;
  for (size_t i = 0, k = start; i < resident.size() && fetched < spec_.fetch_per_cycle; ++i, ++k) {
    if (k >= resident.size()) k = 0;
    const uint32_t slot = resident[k];
    WarpState& w = warps[slot];
    if (w.next_fetch - w.next_issue >= spec_.ibuffer_entries || w.fetch_blocked_until > now) continue;
    const uint32_t size = uint32_t(w.trace->insts.size());
    if (w.next_fetch >= size) continue;
    last_fetched_[sc] = (slot - sc) / spec_.subcores;
    ++attempts_;
    // The I-cache line of the next instruction; the buffer then fills with as many as fit.
    uint64_t ready = now;
    if (icache_.lookup(program[w.trace->insts[w.next_fetch].static_id].pc, now, ready)) {
      ++stats_.icache_hits;
    } else {
      ++stats_.icache_misses;
    }
    if (ready > now) {
      w.fetch_blocked_until = ready;
      return;
    }
    while (w.next_fetch < size && w.next_fetch - w.next_issue < spec_.ibuffer_entries) ++w.next_fetch;
    w.fetch_ready = now + 1;
    ++fetched;
  }
}

}  // namespace lockstep
