// AddressMap: partition hashing, the address decode and the slice-local space.
#include "memsys/address_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace lockstep {
namespace {

MemorySpec spec_with(uint32_t channels, IndexHash partition_hash, uint32_t subpartitions = 2) {
  MemorySpec s;
  s.dram.channels = channels;
  s.l2.partition_hash = partition_hash;
  s.l2.subpartitions = subpartitions;
  s.l2.channel_interleave_bytes = 256;
  s.dram.banks = 16;
  return s;
}

// Accesses per channel for `count` addresses i * stride.
std::vector<uint32_t> channel_counts(const AddressMap& map, uint32_t channels, uint64_t stride, uint64_t count) {
  std::vector<uint32_t> counts(channels, 0);
  for (uint64_t i = 0; i < count; ++i) ++counts[map.channel(i * stride)];
  return counts;
}

TEST(AddressMapIpoly, SpreadsEveryPowerOfTwoStrideEvenlyOverQv100Channels) {
  const AddressMap ipoly(spec_with(32, IndexHash::kIpoly));
  const AddressMap linear(spec_with(32, IndexHash::kLinear));
  // 32 channels x 256 accesses: every stride from 32 B to 1 MB.
  for (uint64_t stride = 32; stride <= (uint64_t(1) << 20); stride *= 2) {
    const auto c = channel_counts(ipoly, 32, stride, 32 * 256);
    const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
    EXPECT_EQ(*lo, *hi) << "ipoly stride " << stride;  // exactly even: max/min = 1
    EXPECT_EQ(*lo, 256u) << "ipoly stride " << stride;
  }
  // Linear mapping: strides up to the 256 B interleave are even, 8 KB and up
  // (32 channels x 256 B) land every access in channel 0.
  for (uint64_t stride = 32; stride <= 256; stride *= 2) {
    const auto c = channel_counts(linear, 32, stride, 32 * 256);
    EXPECT_EQ(*std::min_element(c.begin(), c.end()), 256u) << "linear stride " << stride;
  }
  for (uint64_t stride = 8192; stride <= (uint64_t(1) << 20); stride *= 2) {
    const auto c = channel_counts(linear, 32, stride, 32 * 256);
    EXPECT_EQ(c[0], 32u * 256) << "linear stride " << stride;
  }
  // In between, 1 KB: 4 chunks apart -> 8 of the 32 channels.
  const auto c1k = channel_counts(linear, 32, 1024, 32 * 256);
  EXPECT_EQ(std::count(c1k.begin(), c1k.end(), 0u), 24);
}

TEST(AddressMapIpoly, IsRausIpolyOfTheChunkIndexForPowerOfTwoChannels) {
  const AddressMap map(spec_with(32, IndexHash::kIpoly));
  for (uint64_t chunk = 0; chunk < 100000; chunk += 7) EXPECT_EQ(map.channel(chunk * 256 + 5), ipoly_reduce(chunk, 5));
  // x^5 mod (x^5 + x^2 + 1) = x^2 + 1: chunk 32 goes to channel 5.
  EXPECT_EQ(map.channel(32 * 256), 5u);
}

TEST(AddressMapIpoly, SpreadsPowerOfTwoStridesOverA100FortyChannels) {
  const AddressMap ipoly(spec_with(40, IndexHash::kIpoly, 4));
  const AddressMap linear(spec_with(40, IndexHash::kLinear, 4));
  for (uint64_t stride = 32; stride <= (uint64_t(1) << 20); stride *= 2) {
    const auto c = channel_counts(ipoly, 40, stride, 40 * 256);
    const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
    ASSERT_GT(*lo, 0u) << "stride " << stride;
    EXPECT_LE(double(*hi) / *lo, 1.02) << "stride " << stride;
  }
  // Linear: a 4 KB stride (16 chunks) reaches only the 5 channels that are multiples of 8.
  const auto c = channel_counts(linear, 40, 4096, 40 * 256);
  EXPECT_EQ(std::count(c.begin(), c.end(), 0u), 35);
}

TEST(AddressMapIpoly, EveryAlignedBlockOfChannelCountChunksCoversEveryChannelOnce) {
  for (uint32_t channels : {12u, 32u, 40u, 80u}) {
    for (IndexHash h : {IndexHash::kLinear, IndexHash::kIpoly, IndexHash::kXor}) {
      const AddressMap map(spec_with(channels, h));
      for (uint64_t block : {0ull, 1ull, 77ull, 123456ull}) {
        std::set<uint32_t> seen;
        for (uint64_t k = 0; k < channels; ++k) seen.insert(map.channel((block * channels + k) * 256));
        EXPECT_EQ(seen.size(), channels) << channels << " " << index_hash_name(h) << " block " << block;
      }
    }
  }
}

TEST(AddressMapDecode, IsABijectionOnASample) {
  for (IndexHash h : {IndexHash::kLinear, IndexHash::kIpoly, IndexHash::kXor}) {
    MemorySpec s = spec_with(40, h, 4);
    s.dram.bank_hash = IndexHash::kXor;
    const AddressMap map(s);
    std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint64_t>> seen;
    uint64_t samples = 0;
    // Dense 1 MB at 32 B, then sparse far addresses.
    for (uint64_t a = 0; a < (uint64_t(1) << 20); a += 32, ++samples) {
      const DecodedAddress d = map.decode(a + 4);
      seen.insert({map.slice(a + 4), d.bank, d.row, d.column, (a + 4) % 32});
    }
    for (uint64_t a = uint64_t(1) << 33; a < (uint64_t(1) << 33) + (uint64_t(1) << 30); a += 4096 + 32, ++samples) {
      const DecodedAddress d = map.decode(a);
      seen.insert({map.slice(a), d.bank, d.row, d.column, a % 32});
    }
    EXPECT_EQ(seen.size(), samples) << index_hash_name(h);
  }
}

TEST(AddressMapDecode, SliceLocalAddressRoundTripsAndIsDense) {
  const AddressMap map(spec_with(40, IndexHash::kIpoly, 4));
  ASSERT_EQ(map.slices(), 160u);
  // 160 slices x 64 lines: every slice gets local lines 0 .. 63 exactly once.
  std::vector<std::vector<uint32_t>> lines(160, std::vector<uint32_t>(64, 0));
  for (uint64_t a = 0; a < 160ull * 64 * 128; a += 128) {
    const uint32_t slice = map.slice(a);
    const uint64_t local = map.slice_local(a + 17);
    ASSERT_EQ(map.global(slice, local), a + 17);
    ASSERT_LT(local / 128, 64u);
    ++lines[slice][local / 128];
  }
  for (const auto& l : lines) EXPECT_EQ(*std::min_element(l.begin(), l.end()), 1u);
}

TEST(AddressMapDecode, SectorsOfAChunkShareARowAndTheTwoLinesAlternateSubpartitions) {
  const AddressMap map(spec_with(32, IndexHash::kIpoly, 2));
  const uint64_t chunk = 0x123400;  // 256 B aligned
  const DecodedAddress first = map.decode(chunk);
  for (uint64_t off = 0; off < 256; off += 32) {
    const DecodedAddress d = map.decode(chunk + off);
    EXPECT_EQ(d.channel, first.channel);
    EXPECT_EQ(d.bank, first.bank);
    EXPECT_EQ(d.row, first.row);
    EXPECT_EQ(d.column, first.column + off / 32);
    EXPECT_EQ(d.subpartition, off / 128);
    EXPECT_EQ(map.slice(chunk + off), first.channel * 2 + off / 128);
  }
}

TEST(AddressMapDecode, XorBankHashSpreadsRowStridesOverBanks) {
  MemorySpec s = spec_with(1, IndexHash::kLinear, 1);
  s.dram.bank_hash = IndexHash::kLinear;
  const AddressMap linear(s);
  s.dram.bank_hash = IndexHash::kXor;
  const AddressMap hashed(s);
  // One channel: a stride of 16 banks x 2 KB rows hits bank 0 every time when linear.
  std::set<uint32_t> linear_banks, xor_banks;
  for (uint64_t i = 0; i < 16; ++i) {
    linear_banks.insert(linear.decode(i * 16 * kDramRowBytes).bank);
    xor_banks.insert(hashed.decode(i * 16 * kDramRowBytes).bank);
    EXPECT_EQ(hashed.decode(i * 16 * kDramRowBytes).row, i);
  }
  EXPECT_EQ(linear_banks.size(), 1u);
  EXPECT_EQ(xor_banks.size(), 16u);
}

TEST(AddressMapSetHash, IpolySpreadsPowerOfTwoLineStridesOverAllSets) {
  // 32 sets: 32 lines at any power-of-two line stride fill every set once under IPOLY;
  // linear indexing puts a 32-line stride in one set.
  for (uint64_t stride = 1; stride <= 4096; stride *= 2) {
    std::set<uint32_t> sets;
    for (uint64_t i = 0; i < 32; ++i) sets.insert(AddressMap::l2_set(i * stride, IndexHash::kIpoly, 5));
    EXPECT_EQ(sets.size(), 32u) << "stride " << stride;
  }
  std::set<uint32_t> linear;
  for (uint64_t i = 0; i < 32; ++i) linear.insert(AddressMap::l2_set(i * 32, IndexHash::kLinear, 5));
  EXPECT_EQ(linear.size(), 1u);
}

TEST(AddressMapIpoly, TableDrivenReductionEqualsBitSerialDivisionForEveryDegree) {
  std::mt19937_64 rng(20);
  for (uint32_t bits = 1; bits <= 20; ++bits) {
    for (uint64_t v : {0ull, 1ull, ~0ull, 0x8000000000000000ull, 0xffull, 0x100ull, 0xdeadbeefcafef00dull})
      ASSERT_EQ(ipoly_reduce(v, bits), ipoly_reduce_reference(v, bits)) << v << " bits " << bits;
    for (uint32_t k = 0; k < 64; ++k)
      ASSERT_EQ(ipoly_reduce(uint64_t(1) << k, bits), ipoly_reduce_reference(uint64_t(1) << k, bits)) << k;
    for (int i = 0; i < 20000; ++i) {
      const uint64_t v = rng() >> (rng() % 64);  // every magnitude, small values included
      ASSERT_EQ(ipoly_reduce(v, bits), ipoly_reduce_reference(v, bits)) << v << " bits " << bits;
      ASSERT_EQ(index_hash(IndexHash::kIpoly, v, bits), ipoly_reduce_reference(v, bits));
    }
  }
  // Values below the degree are their own residue; x^5 mod (x^5 + x^2 + 1) = x^2 + 1.
  EXPECT_EQ(ipoly_reduce(0x1f, 5), 0x1fu);
  EXPECT_EQ(ipoly_reduce(0x20, 5), 0x5u);
  EXPECT_EQ(ipoly_reduce(12345, 0), 0u);
  EXPECT_THROW(ipoly_reduce(1, 21), std::invalid_argument);
  EXPECT_THROW(ipoly_reduce_reference(1, 21), std::invalid_argument);
}

TEST(AddressMapDecode, LocateGivesTheSliceOfTheDecodeAndASliceLocalAddressThatRoundTrips) {
  // Power-of-two and other channel and sub-partition counts take different division paths.
  for (auto [channels, subpartitions] : {std::pair{32u, 2u}, std::pair{40u, 4u}, std::pair{12u, 3u}, std::pair{1u, 1u}}) {
    const AddressMap map(spec_with(channels, IndexHash::kIpoly, subpartitions));
    std::mt19937_64 rng(channels);
    for (int i = 0; i < 20000; ++i) {
      const uint64_t a = rng() >> (16 + rng() % 24);
      const SliceAddress s = map.locate(a);
      const DecodedAddress d = map.decode(a);
      ASSERT_EQ(s.slice, d.channel * subpartitions + d.subpartition) << a;
      ASSERT_EQ(s.slice, map.slice(a));
      ASSERT_EQ(s.local, map.slice_local(a));
      ASSERT_EQ(s.local % 128, a % 128);  // the offset inside the line is kept
      ASSERT_EQ(map.global(s.slice, s.local), a) << a;
    }
  }
}

}  // namespace
}  // namespace lockstep

namespace lockstep {
namespace {

TEST(LineLocator, LocatesLikeTheMapOverRunsOfOneLineAndJumps) {
  for (IndexHash h : {IndexHash::kLinear, IndexHash::kIpoly, IndexHash::kXor}) {
    const AddressMap map(spec_with(40, h, 4));
    LineLocator locator(map);
    uint64_t addr = 0x7f0000001000ull, state = 12345;
    for (int i = 0; i < 20000; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      // Mostly the next sector (often the same line), sometimes far away.
      addr = (state >> 60) == 0 ? (state >> 16) : addr + 32 + (state >> 62);
      const SliceAddress want = map.locate(addr), got = locator.locate(addr);
      ASSERT_EQ(got.slice, want.slice) << std::hex << addr;
      ASSERT_EQ(got.local, want.local) << std::hex << addr;
    }
  }
}

}  // namespace
}  // namespace lockstep
