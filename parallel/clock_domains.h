#pragma once
// The four clock domains (core, interconnect, L2, DRAM) in exact integer
// time. Each domain's frequency is an integer number of kHz; edge n of a
// domain with frequency f happens at time n / f. Edges are compared by cross
// multiplication in 128-bit integers, so no rounding ever reorders them, and
// simultaneous edges run in the fixed domain order below (ARCHITECTURE §4:
// the memory side's edges that coincide with a core edge run before it).
#include <array>
#include <cstdint>

#include "configs/spec/gpu_spec.h"

namespace lockstep {

enum class ClockDomain : uint8_t { kIcnt = 0, kL2, kDram, kCore, kCount };

class ClockDomains {
 public:
  explicit ClockDomains(const ClockSpec& clocks);

  // Edges of the memory-side domains (interconnect, L2, DRAM) that happen
  // after the previous core edge and no later than core edge `core_cycle`,
  // in time order (ties in domain order), each with its domain's cycle
  // number. Call with core_cycle = 0, 1, 2, ...
  template <typename Visit>
  void memory_edges_until(uint64_t core_cycle, Visit&& visit) {
    for (;;) {
      int best = -1;
      for (int d = 0; d < 3; ++d)
        if (!after(d, core_cycle) && (best < 0 || earlier(d, best))) best = d;
      if (best < 0) return;
      visit(ClockDomain(best), next_[best]++);
    }
  }
  // Cycles each domain has run so far (the next edge's number).
  uint64_t cycles(ClockDomain d) const { return next_[size_t(d)]; }
  uint64_t khz(ClockDomain d) const { return khz_[size_t(d)]; }
  // Memory-side cycles of domain d that elapse in `core_cycles` core cycles (rounded up).
  uint64_t cycles_in(ClockDomain d, uint64_t core_cycles) const;
  // The most edges of memory domain d that fall into one core cycle.
  uint32_t max_edges_per_core_cycle(ClockDomain d) const;
  // The core cycle whose memory_edges_until() runs edge n of memory domain d.
  uint64_t core_cycle_of(ClockDomain d, uint64_t n) const;
  // Fast-forward: the next memory_edges_until() call will be for core cycle
  // `core_cycle`; the edges before it (after core edge core_cycle - 1 at the
  // latest) are dropped. Only when every one of them would be a no-op.
  void skip_to(uint64_t core_cycle);

 private:
  // Edge next_[d] of domain d happens after core edge c.
  bool after(int d, uint64_t c) const {
    return __int128(next_[d]) * khz_[3] > __int128(c) * khz_[d];
  }
  // Edge next_[a] of domain a happens before edge next_[b] of domain b (ties: lower domain first).
  bool earlier(int a, int b) const {
    const __int128 ta = __int128(next_[a]) * khz_[b], tb = __int128(next_[b]) * khz_[a];
    return ta < tb || (ta == tb && a < b);
  }

  std::array<uint64_t, 4> khz_{};
  std::array<uint64_t, 3> next_{};
};

}  // namespace lockstep
