#include "core/shared_memory_banks.h"

#include <algorithm>
#include <vector>

namespace lockstep {

uint32_t shared_memory_wavefronts(std::span<const uint64_t> addrs, uint32_t access_bytes, uint32_t banks,
                                  uint32_t bank_bytes) {
  if (addrs.empty()) return 1;
  banks = std::clamp(banks, 1u, 128u);
  bank_bytes = std::max(bank_bytes, 1u);
  // Distinct words per bank; at most 32 lanes x 4 words each.
  uint64_t words[128];
  uint32_t nwords = 0;
  for (uint64_t a : addrs)
    for (uint64_t w = a / bank_bytes; w <= (a + std::max(access_bytes, 1u) - 1) / bank_bytes && nwords < 128; ++w) {
      bool seen = false;
      for (uint32_t i = 0; i < nwords && !seen; ++i) seen = words[i] == w;
      if (!seen) words[nwords++] = w;
    }
  uint32_t per_bank[128] = {};
  uint32_t worst = 1;
  for (uint32_t i = 0; i < nwords; ++i) worst = std::max(worst, ++per_bank[words[i] % banks]);
  return worst;
}

}  // namespace lockstep
