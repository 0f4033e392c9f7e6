// The coalescer against a byte-by-byte reference: every byte a lane accesses
// belongs to one sector; a group's requests are its distinct sectors in first-touch order.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/coalescer.h"

namespace lockstep {
namespace {

std::vector<SectorAccess> reference(const std::vector<uint64_t>& addrs, uint32_t mask, uint32_t bytes, uint32_t group) {
  std::vector<SectorAccess> out;
  size_t next = 0;
  for (uint32_t first = 0; first < 32; first += group) {
    const size_t begin = out.size();
    for (uint32_t lane = first; lane < first + group && lane < 32; ++lane) {
      if (!(mask >> lane & 1) || next >= addrs.size()) continue;
      const uint64_t a = addrs[next++];
      for (uint64_t b = a; b < a + bytes; ++b) {
        const uint64_t s = b / kSectorBytes;
        size_t i = begin;
        while (i < out.size() && out[i].sector != s) ++i;
        if (i == out.size()) out.push_back(SectorAccess{s, 0});
        out[i].byte_mask |= 1u << (b % kSectorBytes);
      }
    }
  }
  return out;
}

void expect_same(const std::vector<SectorAccess>& got, const std::vector<SectorAccess>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].sector, want[i].sector) << i;
    EXPECT_EQ(got[i].byte_mask, want[i].byte_mask) << i;
  }
}

TEST(Coalescer, BackToBackLanesStraddlingSectorsSplitTheirBytes) {
  // 8 lanes of 4 bytes from byte 20 of sector 0: bytes 20..51.
  std::vector<uint64_t> addrs;
  for (uint64_t l = 0; l < 8; ++l) addrs.push_back(20 + 4 * l);
  std::vector<SectorAccess> out;
  coalesce(addrs, 0xff, 4, 8, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].sector, 0u);
  EXPECT_EQ(out[0].byte_mask, 0xfff00000u);
  EXPECT_EQ(out[1].sector, 1u);
  EXPECT_EQ(out[1].byte_mask, 0x000fffffu);
}

TEST(Coalescer, MatchesTheByteByByteReference) {
  std::mt19937_64 rng(7);
  const uint32_t sizes[] = {1, 2, 4, 8, 12, 16, 32, 64, 128};
  for (int trial = 0; trial < 4000; ++trial) {
    const uint32_t bytes = sizes[rng() % 9];
    const uint32_t group = rng() % 2 ? 8 : 32;
    const uint32_t mask = rng() % 3 == 0 ? 0xffffffffu : uint32_t(rng());
    const uint64_t base = (rng() % 4096) * (rng() % 2 ? 1 : 4);
    std::vector<uint64_t> addrs;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(mask >> lane & 1)) continue;
      const uint64_t n = addrs.size();
      switch (trial % 4) {
        case 0: addrs.push_back(base + n * bytes); break;                        // back to back
        case 1: addrs.push_back(base + n * bytes + (n == 5 ? 1 : 0)); break;     // one lane off
        case 2: addrs.push_back(base + (rng() % 256)); break;                    // scattered
        default: addrs.push_back(base + (31 - n) * bytes); break;                // descending
      }
    }
    if (trial % 7 == 0 && !addrs.empty()) addrs.pop_back();  // fewer addresses than active lanes
    std::vector<SectorAccess> got;
    coalesce(addrs, mask, bytes, group, got);
    ASSERT_NO_FATAL_FAILURE(expect_same(got, reference(addrs, mask, bytes, group))) << "trial " << trial;
  }
}

// Strided lanes, given as first address and stride: the byte-by-byte
// reference of the addresses written out, back to back (the range path) or
// not (written out inside), for every group size and partial masks.
TEST(Coalescer, StridedLanesMatchTheByteByByteReference) {
  std::mt19937_64 rng(13);
  int whole_trials = 0;  // trials coalesce_strided called whole sectors
  const uint32_t sizes[] = {1, 2, 4, 8, 12, 16, 32, 64, 128};
  for (int trial = 0; trial < 4000; ++trial) {
    const uint32_t bytes = sizes[rng() % 9];
    const uint32_t group = trial % 3 == 0 ? 32 : trial % 3 == 1 ? 8 : 1 + uint32_t(rng() % 12);
    const uint32_t mask = rng() % 3 == 0 ? 0xffffffffu : uint32_t(rng());
    const uint64_t first = (rng() % 4096) * (rng() % 2 ? 1 : 4) + 4096;
    const int64_t strides[] = {int64_t(bytes), int64_t(bytes), 0, -int64_t(bytes), int64_t(bytes) + 4, 128};
    const uint64_t stride = uint64_t(strides[rng() % 6]);
    std::vector<uint64_t> addrs;
    for (uint32_t lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1) addrs.push_back(first + addrs.size() * stride);
    std::vector<SectorAccess> got;
    const bool whole = coalesce_strided(first, stride, mask, bytes, group, got);
    ASSERT_NO_FATAL_FAILURE(expect_same(got, reference(addrs, mask, bytes, group)))
        << "trial " << trial << ", stride " << int64_t(stride) << ", group " << group;
    // Told whole: every request a whole sector, each the one after the last.
    if (!whole) continue;
    ++whole_trials;
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k].byte_mask, 0xffffffffu) << "trial " << trial << ", request " << k;
      if (k > 0) {
        ASSERT_EQ(got[k].sector, got[k - 1].sector + 1) << "trial " << trial << ", request " << k;
      }
    }
  }
  EXPECT_GT(whole_trials, 0);  // (the claim was made and checked)
}

}  // namespace
}  // namespace lockstep
