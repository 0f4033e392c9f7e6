#include "core/shared_memory_banks.h"

#include <algorithm>
#include <bit>

#include "core/divisor.h"

namespace lockstep {

uint32_t shared_memory_wavefronts(std::span<const uint64_t> addrs, uint32_t access_bytes, uint32_t banks,
                                  uint32_t bank_bytes) {
  if (addrs.empty()) return 1;
  const Divisor bank_of(std::clamp(banks, 1u, 128u)), word_of(std::max(bank_bytes, 1u));
  const uint64_t bytes = std::max(access_bytes, 1u);
  // The distinct words (at most 32 lanes x 4 words each), chained per bank
  // so that a word is compared only with the words of its own bank.
  constexpr uint32_t kMaxWords = 128;
  constexpr uint8_t kNone = 0xff;
  uint64_t words[kMaxWords];
  uint8_t next_in_bank[kMaxWords];
  uint8_t first_in_bank[128], words_in_bank[128];
  std::fill_n(first_in_bank, bank_of.d, kNone);
  std::fill_n(words_in_bank, bank_of.d, 0);
  uint32_t nwords = 0, worst = 1;
  uint64_t previous = addrs[0] + 1;
  for (uint64_t a : addrs) {
    if (a == previous) continue;  // a broadcast: the same words as the lane before
    previous = a;
    for (uint64_t w = word_of.div(a), last = word_of.div(a + bytes - 1); w <= last && nwords < kMaxWords; ++w) {
      const uint32_t bank = uint32_t(bank_of.mod(w));
      bool seen = false;
      for (uint8_t i = first_in_bank[bank]; i != kNone && !seen; i = next_in_bank[i]) seen = words[i] == w;
      if (seen) continue;
      words[nwords] = w;
      next_in_bank[nwords] = first_in_bank[bank];
      first_in_bank[bank] = uint8_t(nwords++);
      worst = std::max(worst, uint32_t(++words_in_bank[bank]));
    }
  }
  return worst;
}

}  // namespace lockstep

namespace lockstep {

SharedMemoryBanks::SharedMemoryBanks(uint32_t banks, uint32_t bank_bytes)
    : banks_(std::clamp(banks, 1u, 128u)),
      bank_bytes_(std::max(bank_bytes, 1u)),
      row_bytes_(uint64_t(banks_) * bank_bytes_) {}

uint32_t SharedMemoryBanks::wavefronts(const void* site, std::span<const uint64_t> addrs, uint32_t access_bytes) {
  if (addrs.empty() || addrs.size() > 32) return shared_memory_wavefronts(addrs, access_bytes, banks_, bank_bytes_);
  Pattern& p = patterns_[(reinterpret_cast<uintptr_t>(site) >> 4) % kPatterns];
  const uint64_t first = addrs[0], first_in_row = first % row_bytes_;
  bool same = p.lanes == addrs.size() && p.access_bytes == access_bytes && p.first_in_row == first_in_row;
  for (size_t i = 1; i < addrs.size() && same; ++i) same = p.offsets[i] == addrs[i] - first;
  if (same) return p.wavefronts;
  p.lanes = uint32_t(addrs.size());
  p.access_bytes = access_bytes;
  p.first_in_row = first_in_row;
  for (size_t i = 0; i < addrs.size(); ++i) p.offsets[i] = addrs[i] - first;
  p.wavefronts = shared_memory_wavefronts(addrs, access_bytes, banks_, bank_bytes_);
  return p.wavefronts;
}

}  // namespace lockstep
