#include "core/sm/instruction_fetch.h"

namespace lockstep {

InstructionFetch::InstructionFetch(const SmSpec& spec, SmStats& stats) : spec_(spec), stats_(stats), icache_(spec) {
  last_fetched_.assign(spec.subcores, UINT32_MAX);
}

void InstructionFetch::fetch(uint32_t sc, uint64_t now, std::span<WarpState> warps, const KernelProgram& program) {
  const uint32_t per = (spec_.max_warps - sc + spec_.subcores - 1) / spec_.subcores;
  uint32_t fetched = 0;
  uint32_t idx = last_fetched_[sc] == UINT32_MAX ? 0 : last_fetched_[sc] + 1;
  for (uint32_t i = 0; i < per && fetched < spec_.fetch_per_cycle; ++i, ++idx) {
    if (idx >= per) idx -= per;
    WarpState& w = warps[sc + idx * spec_.subcores];
    if (!w.active || w.next_fetch - w.next_issue >= spec_.ibuffer_entries || w.fetch_blocked_until > now) continue;
    const uint32_t size = uint32_t(w.trace->insts.size());
    if (w.next_fetch >= size) continue;
    last_fetched_[sc] = idx;
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
