#include "parallel/clock_domains.h"

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

}  // namespace lockstep
