#include "parallel/clock_domains.h"

#include <algorithm>
#include <cmath>

namespace lockstep {

ClockDomains::ClockDomains(const ClockSpec& c) {
  auto khz = [](double mhz) { return uint64_t(std::llround(mhz * 1000.0)); };
  khz_ = {khz(c.icnt_mhz), khz(c.l2_mhz), khz(c.dram_mhz), khz(c.core_mhz)};
}

uint64_t ClockDomains::cycles_in(ClockDomain d, uint64_t core_cycles) const {
  const __int128 num = __int128(core_cycles) * khz_[size_t(d)];
  return uint64_t((num + khz_[3] - 1) / khz_[3]);
}

uint32_t ClockDomains::max_edges_per_core_cycle(ClockDomain d) const {
  return uint32_t((khz_[size_t(d)] + khz_[3] - 1) / khz_[3]);
}

uint64_t ClockDomains::core_cycle_of(ClockDomain d, uint64_t n) const {
  const __int128 num = __int128(n) * khz_[3];
  return uint64_t((num + khz_[size_t(d)] - 1) / khz_[size_t(d)]);
}

void ClockDomains::skip_to(uint64_t core_cycle) {
  if (core_cycle == 0) return;
  for (size_t d = 0; d < 3; ++d) {
    // The first edge after core edge core_cycle - 1.
    const uint64_t first = uint64_t(__int128(core_cycle - 1) * khz_[d] / khz_[3]) + 1;
    next_[d] = std::max(next_[d], first);
  }
}

}  // namespace lockstep
