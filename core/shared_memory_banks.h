#pragma once
// Shared-memory bank conflicts: each bank returns one word per cycle; lanes
// reading the same word are served together (broadcast). The access takes as
// many cycles (wavefronts) as the busiest bank has distinct words.
#include <array>
#include <cstdint>
#include <span>

namespace lockstep {

uint32_t shared_memory_wavefronts(std::span<const uint64_t> addrs, uint32_t access_bytes, uint32_t banks,
                                  uint32_t bank_bytes);

// The banks of one SM's shared memory, remembering the wavefronts of recent
// access patterns: a pattern is its lanes' offsets from the first lane, the
// first lane's address modulo one row of banks (banks x bank_bytes) and the
// access size, which together decide the wavefronts exactly (moving every
// address by whole rows moves every word by whole rows: same banks, same
// broadcasts). The warps of a kernel repeat the patterns of each static
// instruction, so most accesses are a comparison, not a count.
class SharedMemoryBanks {
 public:
  SharedMemoryBanks(uint32_t banks, uint32_t bank_bytes);
  // The wavefronts of one access; `site` (the static instruction) picks
  // where its pattern is remembered (any value gives the exact result).
  uint32_t wavefronts(const void* site, std::span<const uint64_t> addrs, uint32_t access_bytes);

 private:
  struct Pattern {
    uint32_t lanes = UINT32_MAX;  // none remembered
    uint32_t access_bytes = 0;
    uint64_t first_in_row = 0;
    std::array<uint64_t, 32> offsets{};
    uint32_t wavefronts = 0;
  };
  static constexpr size_t kPatterns = 32;
  uint32_t banks_, bank_bytes_;
  uint64_t row_bytes_;
  std::array<Pattern, kPatterns> patterns_{};
};

}  // namespace lockstep
