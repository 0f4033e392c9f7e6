// Shared-memory wavefronts: the bank rule on hand-derived patterns, and the
// remembered patterns of SharedMemoryBanks giving the same count as the
// direct computation, also when a site's pattern changes or moves.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/shared_memory_banks.h"

namespace lockstep {
namespace {

std::vector<uint64_t> strided(uint64_t base, uint64_t stride, size_t lanes = 32) {
  std::vector<uint64_t> a;
  for (size_t i = 0; i < lanes; ++i) a.push_back(base + i * stride);
  return a;
}

TEST(SharedMemoryBanks, BankRule) {
  // 32 banks of 4 bytes: consecutive words take one wavefront, a stride of
  // 8 bytes puts two distinct words in each even bank, a stride of 128 all
  // 32 words in bank 0; one word read by every lane is a broadcast.
  EXPECT_EQ(shared_memory_wavefronts(strided(0, 4), 4, 32, 4), 1u);
  EXPECT_EQ(shared_memory_wavefronts(strided(0, 8), 4, 32, 4), 2u);
  EXPECT_EQ(shared_memory_wavefronts(strided(0, 128), 4, 32, 4), 32u);
  EXPECT_EQ(shared_memory_wavefronts(strided(64, 0), 4, 32, 4), 1u);
  // 16-byte accesses of consecutive lanes: 128 words over 32 banks, 4 each.
  EXPECT_EQ(shared_memory_wavefronts(strided(0, 16), 16, 32, 4), 4u);
  // Pairs of lanes on the same 16 bytes: 64 distinct words, 2 per bank.
  std::vector<uint64_t> pairs;
  for (uint64_t i = 0; i < 32; ++i) pairs.push_back(i / 2 * 16);
  EXPECT_EQ(shared_memory_wavefronts(pairs, 16, 32, 4), 2u);
}

TEST(SharedMemoryBanks, RememberedPatternsGiveTheDirectCount) {
  SharedMemoryBanks banks(32, 4);
  std::mt19937_64 rng(7);
  const int sites[3] = {};
  for (int round = 0; round < 4000; ++round) {
    const void* site = &sites[rng() % 3];
    const size_t lanes = 1 + rng() % 32;
    const uint32_t bytes = uint32_t(4u << (rng() % 3));
    std::vector<uint64_t> a;
    switch (rng() % 4) {
      case 0:  // a strided pattern at a base that moves by whole rows (the same count)
        a = strided(128 * (rng() % 8), 4 * (1 + rng() % 4), lanes);
        break;
      case 1:  // the same strides, moved by part of a row
        a = strided(4 * (rng() % 64), 4 * (1 + rng() % 4), lanes);
        break;
      case 2:  // few distinct addresses: broadcasts and conflicts
        for (size_t i = 0; i < lanes; ++i) a.push_back(4 * (rng() % 6) * 32 + 4 * (rng() % 2));
        break;
      default:
        for (size_t i = 0; i < lanes; ++i) a.push_back(rng() % 4096);
    }
    ASSERT_EQ(banks.wavefronts(site, a, bytes), shared_memory_wavefronts(a, bytes, 32, 4)) << "round " << round;
  }
}

TEST(SharedMemoryBanks, APatternMovedByPartOfAWordIsCountedAgain) {
  // Lanes at 0 and 124 (4 bytes each) touch words 0 and 31: banks 0 and 31,
  // one wavefront. The same offsets from 2 touch words 0, 1 and 31, 32:
  // words 0 and 32 in bank 0, two wavefronts. Moved by whole rows (128
  // bytes): the same banks again.
  SharedMemoryBanks banks(32, 4);
  const int site = 0;
  EXPECT_EQ(banks.wavefronts(&site, std::vector<uint64_t>{0, 124}, 4), 1u);
  EXPECT_EQ(banks.wavefronts(&site, std::vector<uint64_t>{2, 126}, 4), 2u);
  EXPECT_EQ(banks.wavefronts(&site, std::vector<uint64_t>{128 * 7 + 2, 128 * 7 + 126}, 4), 2u);
  EXPECT_EQ(banks.wavefronts(&site, std::vector<uint64_t>{128 * 7, 128 * 7 + 124}, 4), 1u);
}

}  // namespace
}  // namespace lockstep
