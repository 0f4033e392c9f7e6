// The compact lane address store: every form gives back exactly the addresses
// stored, whatever the lanes, and takes the words its form promises.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "frontend/container/chunk_codec.h"
#include "frontend/trace/block_trace.h"
#include "frontend/trace/lane_address_store.h"

namespace lockstep {
namespace {

std::vector<uint64_t> strided(uint64_t base, int64_t stride, uint32_t lanes) {
  std::vector<uint64_t> a;
  for (uint32_t k = 0; k < lanes; ++k) a.push_back(base + uint64_t(stride) * k);
  return a;
}

// Stores every pattern in one store (so that later records sit after earlier
// ones and the warp's base is the first pattern's), then reads each back.
void expect_round_trip(const std::vector<std::vector<uint64_t>>& patterns) {
  LaneAddressStore store;
  std::vector<uint32_t> refs;
  for (const auto& p : patterns) refs.push_back(store.append(p.data(), uint32_t(p.size())));
  for (size_t i = 0; i < patterns.size(); ++i) {
    LaneAddressStore::Lanes out{};
    const uint32_t lanes = uint32_t(patterns[i].size());
    ASSERT_TRUE(store.holds(refs[i], lanes)) << "pattern " << i;
    store.read(refs[i], lanes, out.data());
    EXPECT_EQ(std::vector<uint64_t>(out.begin(), out.begin() + lanes), patterns[i]) << "pattern " << i;
  }
}

// Words one pattern takes when stored after `first` (which sets the warp's base).
size_t words_after(const std::vector<uint64_t>& first, const std::vector<uint64_t>& p) {
  LaneAddressStore store;
  store.append(first.data(), uint32_t(first.size()));
  const size_t before = store.words();
  store.append(p.data(), uint32_t(p.size()));
  return store.words() - before;
}

TEST(LaneAddressStore, UniformStridesRoundTripInTwoWords) {
  const uint64_t base = 0x7f3a00001000ull;
  std::vector<std::vector<uint64_t>> patterns;
  for (uint32_t lanes = 1; lanes <= 32; ++lanes)
    for (int64_t stride : {int64_t(4), int64_t(8), int64_t(0), int64_t(-4), int64_t(128), int64_t(0x7fffffff)})
      patterns.push_back(strided(base + 64 * lanes, stride, lanes));
  expect_round_trip(patterns);
  const auto first = strided(base, 4, 32);
  EXPECT_EQ(words_after(first, strided(base + 0x100000, 4, 32)), 2u);
  EXPECT_EQ(words_after(first, strided(base - 0x100000, -8, 17)), 2u);
  EXPECT_EQ(words_after(first, strided(base + 12, 4, 1)), 1u);
}

// append_strided makes the record append makes of the addresses written out
// (the same reference, words and addresses read back), and strided() gives
// back the first address and stride of exactly the stride records.
TEST(LaneAddressStore, StridedRecordsAreTheRecordsOfTheirAddresses) {
  std::mt19937_64 rng(5);
  LaneAddressStore by_addresses, by_stride;
  for (int i = 0; i < 2000; ++i) {
    const uint32_t lanes = uint32_t(rng() % 33);
    const uint64_t first = i % 5 == 0 ? rng() : 0x7f3a00000000ull + rng() % (uint64_t(1) << 33);
    const int64_t strides[] = {4, 16, 0, -8, 0x7fffffff, int64_t(1) << 33, -(int64_t(1) << 40)};
    const int64_t stride = strides[rng() % 7];
    const auto a = strided(first, stride, lanes);
    const uint32_t ref = by_addresses.append(a.data(), lanes);
    ASSERT_EQ(by_stride.append_strided(first, uint64_t(stride), lanes), ref) << "record " << i;
    ASSERT_EQ(by_stride.words(), by_addresses.words()) << "record " << i;
    LaneAddressStore::Lanes out{};
    by_stride.read(ref, lanes, out.data());
    ASSERT_EQ(std::vector<uint64_t>(out.begin(), out.begin() + lanes), a) << "record " << i;
    uint64_t f = 0, s = 0;
    const bool is_strided = by_stride.strided(ref, lanes, &f, &s);
    ASSERT_EQ(is_strided, lanes > 0 && (lanes == 1 || (stride >= INT32_MIN && stride <= INT32_MAX))) << "record " << i;
    if (is_strided) {
      EXPECT_EQ(f, first) << "record " << i;
      EXPECT_EQ(s, lanes > 1 ? uint64_t(stride) : 0u) << "record " << i;
    }
  }
}

TEST(LaneAddressStore, FarUniformStridesKeepTheirFullBase) {
  // Shared-memory addresses in a warp whose first address is global: far from the base.
  const auto first = strided(0x7f3a00001000ull, 4, 32);
  const auto shared = strided(0x40, 4, 32);
  expect_round_trip({first, shared, strided(0xffffffffffffff00ull, 8, 32), {0x10}});
  EXPECT_EQ(words_after(first, shared), 3u);
  EXPECT_EQ(words_after(first, {0x10}), 2u);
}

TEST(LaneAddressStore, GathersNearTheBaseTakeOneWordALane) {
  std::mt19937_64 rng(7);
  const uint64_t base = 0x7f3a00000000ull;
  std::vector<std::vector<uint64_t>> patterns = {{base}};
  for (uint32_t lanes = 2; lanes <= 32; ++lanes) {
    std::vector<uint64_t> p;
    for (uint32_t k = 0; k < lanes; ++k) p.push_back(base - 0x80000000ull + rng() % 0xffffffffull);
    patterns.push_back(p);
  }
  expect_round_trip(patterns);
  for (size_t i = 1; i < patterns.size(); ++i) EXPECT_EQ(words_after(patterns[0], patterns[i]), patterns[i].size());
}

TEST(LaneAddressStore, IrregularFarAddressesRoundTripInFull) {
  std::mt19937_64 rng(11);
  std::vector<std::vector<uint64_t>> patterns = {{0x1000}};
  for (uint32_t lanes = 1; lanes <= 32; ++lanes) {
    std::vector<uint64_t> p;
    for (uint32_t k = 0; k < lanes; ++k) p.push_back(rng());
    patterns.push_back(p);
  }
  // Strided but with a stride beyond 32 bits; one lane 2^31 from the base.
  patterns.push_back(strided(0x1000, int64_t(1) << 33, 8));
  patterns.push_back({0x1000, 0x1000 + 0x80000000ull, 0x1004});
  expect_round_trip(patterns);
  EXPECT_EQ(words_after(patterns[0], patterns.back()), 6u);
}

TEST(LaneAddressStore, EmptyRecordsAndTheirNeighbours) {
  LaneAddressStore store;
  const uint32_t none = store.append(nullptr, 0);
  const auto a = strided(0x2000, 4, 32);
  const uint32_t ref = store.append(a.data(), 32);
  EXPECT_TRUE(store.holds(none, 0));
  EXPECT_TRUE(store.holds(ref, 32));
  EXPECT_FALSE(store.holds(ref + 5, 32));  // beyond the words stored
  LaneAddressStore::Lanes out{};
  store.read(ref, 32, out.data());
  EXPECT_EQ(std::vector<uint64_t>(out.begin(), out.end()), a);
  store.clear();
  EXPECT_EQ(store.words(), 0u);
  EXPECT_FALSE(store.holds(ref, 32));
}

// Through a warp, partial masks included: what push stores, lane_addresses
// gives back for each instruction, before and after an encode/decode round
// trip of the chunk.
TEST(LaneAddressStore, WarpInstructionsWithPartialMasksRoundTripThroughAChunk) {
  StaticTable table;
  StaticInstruction ld;
  ld.pc = 0x10;
  ld.opcode_id = table.intern_opcode("LDG.E");
  ld.mem_width = 4;
  const uint32_t sid = table.intern(ld);
  StaticInstruction alu;
  alu.pc = 0x20;
  alu.opcode_id = table.intern_opcode("IADD3");
  const uint32_t alu_id = table.intern(alu);

  std::mt19937_64 rng(3);
  BlockTrace block;
  std::vector<std::vector<uint64_t>> expected;
  WarpTrace& w = block.warps.emplace_back();
  for (int i = 0; i < 400; ++i) {
    const uint32_t mask = i % 5 == 0 ? 0xffffffffu : uint32_t(rng());
    const uint32_t lanes = uint32_t(std::popcount(mask));
    std::vector<uint64_t> a;
    switch (i % 4) {
      case 0: a = strided(0x7f0000000000ull + 128 * uint64_t(i), 4, lanes); break;
      case 1:
        for (uint32_t k = 0; k < lanes; ++k) a.push_back(0x7f0000000000ull + rng() % (1u << 24));
        break;
      case 2:
        for (uint32_t k = 0; k < lanes; ++k) a.push_back(rng());
        break;
      default: a = strided(0x80 * uint64_t(i), -16, lanes); break;
    }
    w.push(sid, mask, a);
    w.push(alu_id, mask);
    expected.push_back(a);
  }
  w.push(sid, 0, {});
  expected.emplace_back();

  auto check = [&](const WarpTrace& got) {
    ASSERT_EQ(got.insts.size(), w.insts.size());
    LaneBuffer buf;
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto lanes = got.lane_addresses(got.insts[2 * i], table, buf);
      EXPECT_EQ(std::vector<uint64_t>(lanes.begin(), lanes.end()), expected[i]) << "instruction " << 2 * i;
    }
  };
  check(w);
  std::vector<BlockTrace> out;
  decode_chunk(encode_chunk(0, 0, std::span<const BlockTrace>(&block, 1), table).frame, table, out, "t");
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].warps.size(), 1u);
  check(out[0].warps[0]);
  EXPECT_THROW(w.push(sid, 0xffu, std::vector<uint64_t>{1, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace lockstep
