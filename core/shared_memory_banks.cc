#include "core/shared_memory_banks.h"

#include <algorithm>
#include <bit>

namespace lockstep {
namespace {

// a / d and a % d, by shifts when d is a power of two (the usual bank geometry).
struct Divisor {
  explicit Divisor(uint32_t d) : d(d), shift(std::has_single_bit(d) ? uint32_t(std::countr_zero(d)) : kNoShift) {}
  uint64_t div(uint64_t a) const { return shift != kNoShift ? a >> shift : a / d; }
  uint64_t mod(uint64_t a) const { return shift != kNoShift ? a & (d - 1) : a % d; }
  static constexpr uint32_t kNoShift = 64;
  uint64_t d;
  uint32_t shift;
};

}  // namespace

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
  for (uint64_t a : addrs)
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
  return worst;
}

}  // namespace lockstep
