// The cache-functional memory model's rules (memsys/functional/,
// papers/cache-functional-memory-model.txt §3-§4): sectored L2 and L1, the
// write-back and write-validate L2, L1 hits filtered before the L2, the
// carve-out sizing the L1, placement and the merge order of the L2.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <random>
#include <vector>

#include "configs/spec/gpu_config.h"
#include "memsys/functional/functional_gpu.h"
#include "memsys/functional/functional_l2.h"
#include "memsys/functional/functional_sm.h"
#include "tests/core/sm_script.h"

namespace lockstep {
namespace {

// One set of two ways, linear index: every line competes for the same two ways.
L2Spec two_way_l2() {
  L2Spec s;
  s.sets = 1;
  s.ways = 2;
  s.set_hash = IndexHash::kLinear;
  return s;
}

constexpr uint32_t kWholeSector = 0xffffffffu;

// §3.1, §4.1: a line present does not make its other sectors present; a read of
// an absent sector of a present line is a miss and one DRAM sector read.
TEST(FunctionalL2Rules, ASectorMissOnALineHitReadsDram) {
  FunctionalL2Slice slice(two_way_l2());
  slice.read(0);   // line and sector absent
  slice.read(32);  // line present, sector 1 absent
  slice.read(0);   // hit
  EXPECT_EQ(slice.stats().read_sectors, 3u);
  EXPECT_EQ(slice.stats().read_hits, 1u);
  EXPECT_EQ(slice.dram_stats().read_sectors, 2u);
  EXPECT_EQ(slice.stats().fill_sectors, 2u);
}

// §3.3, Figure 4: a write-back L2 writes DRAM only when a line with dirty
// sectors is evicted, one DRAM write per dirty sector; a clean eviction writes nothing.
TEST(FunctionalL2Rules, DirtySectorsAreWrittenBackOnlyAtEviction) {
  FunctionalL2Slice slice(two_way_l2());
  slice.write(0, kWholeSector);   // line 0, sector 0
  slice.write(64, kWholeSector);  // line 0, sector 2
  slice.write(128, kWholeSector);  // line 1, sector 0: the set is full now
  slice.read(128);
  EXPECT_EQ(slice.dram_stats().write_sectors, 0u) << "a write or a hit never writes DRAM";
  slice.read(256);  // line 2 evicts line 0 (least recently used): its 2 dirty sectors
  EXPECT_EQ(slice.dram_stats().write_sectors, 2u);
  EXPECT_EQ(slice.stats().writeback_sectors, 2u);
  slice.read(384);  // line 3 evicts line 1: 1 dirty sector
  EXPECT_EQ(slice.dram_stats().write_sectors, 3u);
  slice.read(512);  // line 4 evicts line 2, which was only read: clean
  EXPECT_EQ(slice.dram_stats().write_sectors, 3u);
}

// §3.3 (Khairy et al.): write-validate installs a write's bytes without
// reading the sector from DRAM; a sector written whole then reads as a hit,
// one written in part is fetched when read.
TEST(FunctionalL2Rules, WriteValidateAvoidsTheDramRead) {
  FunctionalL2Slice slice(two_way_l2());
  slice.write(0, kWholeSector);
  EXPECT_EQ(slice.dram_stats().read_sectors, 0u);
  slice.read(0);
  EXPECT_EQ(slice.stats().read_hits, 1u);
  EXPECT_EQ(slice.dram_stats().read_sectors, 0u);
  slice.write(32, 0x0000000fu);  // 4 bytes of sector 1
  EXPECT_EQ(slice.dram_stats().read_sectors, 0u);
  slice.read(32);  // only partly present: fetched
  EXPECT_EQ(slice.stats().read_hits, 1u);
  EXPECT_EQ(slice.dram_stats().read_sectors, 1u);
}

// l2.write_validate = false: the paper's plain write-back L2 (§3.3, Figure 4)
// reads a written sector from DRAM first unless it is readable.
TEST(FunctionalL2Rules, FetchOnWriteReadsTheSectorFirst) {
  L2Spec spec = two_way_l2();
  spec.write_validate = false;
  FunctionalL2Slice slice(spec);
  slice.write(0, 0x0000000fu);
  EXPECT_EQ(slice.dram_stats().read_sectors, 1u);
  slice.write(0, 0x000000f0u);  // now readable: no second read
  EXPECT_EQ(slice.dram_stats().read_sectors, 1u);
  slice.read(0);
  EXPECT_EQ(slice.stats().read_hits, 1u);
  EXPECT_EQ(slice.dram_stats().read_sectors, 1u);
}

// An atomic needs its sector: fetched when absent, then written (dirty).
TEST(FunctionalL2Rules, AnAtomicFetchesItsSectorAndLeavesItDirty) {
  FunctionalL2Slice slice(two_way_l2());
  slice.atomic(0, 0xfu);
  EXPECT_EQ(slice.stats().atomic_sectors, 1u);
  EXPECT_EQ(slice.dram_stats().read_sectors, 1u);
  EXPECT_EQ(slice.cache().dirty_sectors(), 1u);
}

// The slice's rules one sector at a time, straight on the L2's policy (the
// per-sector calls of L2CachePolicy): the reference for line requests.
struct SectorBySectorSlice {
  explicit SectorBySectorSlice(const L2Spec& spec) : policy(spec) {}
  void write_back(const VictimWriteBacks& v) {
    stats.writeback_sectors += v.count();
    dram.write_sectors += v.count();
  }
  void fetch(uint64_t a) {
    ++dram.read_sectors;
    ++stats.fill_sectors;
    write_back(policy.fill(a));
  }
  void read(uint64_t a) {
    ++stats.read_sectors;
    if (policy.hit_if_readable(a)) {
      ++stats.read_hits;
    } else {
      fetch(a);
    }
  }
  void write(uint64_t a, uint32_t bytes) {
    ++stats.write_sectors;
    if (L2CachePolicy::write_hit(policy.lookup(a))) ++stats.write_hits;
    if (policy.write_needs_fetch(a)) fetch(a);
    write_back(policy.write(a, bytes));
  }
  void atomic(uint64_t a, uint32_t bytes) {
    ++stats.atomic_sectors;
    if (!policy.hit_if_readable(a)) fetch(a);
    write_back(policy.write(a, bytes));
  }
  L2CachePolicy policy;
  L2SliceStats stats;
  DramChannelStats dram;
};

// A request for several sectors of a line counts and caches exactly as its
// sectors requested one by one, in any order: reads, writes (write-validate
// and fetch on write) and atomics, whole and partial bytes, over lines that
// contend for 2 sets x 2 ways (so the LRU order shows in later evictions).
TEST(FunctionalL2Rules, ALineRequestIsItsSectorsOneByOneInAnyOrder) {
  for (const bool write_validate : {true, false}) {
    L2Spec spec = two_way_l2();
    spec.sets = 2;
    spec.write_validate = write_validate;
    FunctionalL2Slice slice(spec);
    SectorBySectorSlice reference(spec);
    std::mt19937_64 rng(11);
    for (int step = 0; step < 20000; ++step) {
      const uint64_t line = (rng() % 10) * 128;
      const uint32_t sectors = 1 + uint32_t(rng() % 15);
      const uint32_t bytes = rng() % 2 ? kWholeSector : uint32_t(rng());
      const auto type = L2RequestType(rng() % 3);
      slice.access(L2Request{line, 0, sectors, bytes, type});
      std::vector<uint32_t> order;
      for (uint32_t s = 0; s < 4; ++s)
        if (sectors >> s & 1) order.push_back(s);
      std::shuffle(order.begin(), order.end(), rng);
      for (const uint32_t s : order) {
        const uint64_t a = line + 32 * s;
        if (type == L2RequestType::kRead) reference.read(a);
        if (type == L2RequestType::kWrite) reference.write(a, bytes);
        if (type == L2RequestType::kAtomic) reference.atomic(a, bytes);
      }
      ASSERT_EQ(slice.stats(), reference.stats) << "step " << step << ", write_validate " << write_validate;
      ASSERT_EQ(slice.dram_stats(), reference.dram) << "step " << step << ", write_validate " << write_validate;
      ASSERT_EQ(slice.cache().dirty_sectors(), reference.policy.cache().dirty_sectors()) << "step " << step;
      ASSERT_EQ(slice.cache().valid_sectors(), reference.policy.cache().valid_sectors()) << "step " << step;
    }
    EXPECT_GT(slice.stats().writeback_sectors, 0u) << "the sequence must evict dirty lines";
    EXPECT_GT(slice.stats().read_hits, 0u);
  }
}

// One SM of the functional model on QV100, driven by a hand-built kernel.
class FunctionalSmTest : public ::testing::Test {
 protected:
  FunctionalSmTest() : spec_(load_gpu_spec("QV100")), map_(spec_.memory), script_(spec_.sm), sm_(spec_, map_) {
    load_ = script_.inst("LDG.E", {2}, {4}, 4);
  }
  // 32 lanes, 4 bytes each, from `base`: one 128 B line, its 4 sectors.
  static std::vector<uint64_t> line_of(uint64_t base) {
    std::vector<uint64_t> a;
    for (uint64_t lane = 0; lane < 32; ++lane) a.push_back(base + 4 * lane);
    return a;
  }
  // Runs `block` alone with `l1_kb` of L1.
  void run(const BlockTrace& block, uint32_t l1_kb) {
    Occupancy o;
    o.blocks_per_sm = 1;
    o.warps_per_block = uint32_t(block.warps.size());
    o.l1_kb = l1_kb;
    sm_.start_kernel(script_.program(), o);
    sm_.give(std::make_unique<BlockTrace>(block));
    sm_.run(false);
    stats_ = sm_.take_stats();
  }
  // Every request the SM sent to the L2, over all slices.
  size_t l2_requests() const {
    size_t n = 0;
    for (uint32_t s = 0; s < map_.slices(); ++s) n += sm_.requests(s).size();
    return n;
  }
  // The sectors of those requests.
  size_t l2_sectors() const {
    size_t n = 0;
    for (uint32_t s = 0; s < map_.slices(); ++s)
      for (const L2Request& r : sm_.requests(s)) n += size_t(std::popcount(r.sectors));
    return n;
  }

  GpuSpec spec_;
  AddressMap map_;
  test::Script script_;
  FunctionalSm sm_;
  uint32_t load_ = 0;
  SmStats stats_;
};

// §3.2, §5.3.2: only L1 misses reach the L2.
TEST_F(FunctionalSmTest, L1HitsNeverReachTheL2) {
  BlockTrace block;
  script_.add(block, 0, load_, line_of(0x10000));
  script_.add(block, 0, load_, line_of(0x10000));
  run(block, 128);
  EXPECT_EQ(stats_.global_ld_sectors, 8u);
  EXPECT_EQ(stats_.l1.global_ld_hit_sectors, 4u);
  EXPECT_EQ(stats_.l1.miss_sectors, 4u);
  EXPECT_EQ(l2_sectors(), 4u) << "the second load's 4 sectors hit in L1 and must not reach the L2";
  EXPECT_EQ(l2_requests(), 1u) << "the first load's 4 sectors of one line go as one request";
}

// The L1 is sectored too: the first lanes' sector does not bring its line's others.
TEST_F(FunctionalSmTest, AnL1SectorMissOnALineHitGoesToTheL2) {
  BlockTrace block;
  const std::vector<uint64_t> line = line_of(0x20000);
  script_.add(block, 0, load_, std::vector<uint64_t>(line.begin(), line.begin() + 8));  // sector 0
  script_.add(block, 0, load_, std::vector<uint64_t>(line.begin(), line.begin() + 16));  // sectors 0, 1
  run(block, 128);
  EXPECT_EQ(stats_.global_ld_sectors, 3u);
  EXPECT_EQ(stats_.l1.global_ld_hit_sectors, 1u);
  EXPECT_EQ(l2_sectors(), 2u);
}

// §4.2: the kernel's shared-memory carve-out sets the L1's capacity. Two
// passes over 64 KB: the second hits everywhere in a 128 KB L1 and nowhere in
// a 32 KB one (LRU, a pass longer than the cache).
TEST_F(FunctionalSmTest, TheCarveOutChangesTheL1Capacity) {
  BlockTrace block;
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t line = 0; line < 512; ++line) script_.add(block, 0, load_, line_of(0x100000 + 128 * line));
  run(block, 128);
  EXPECT_EQ(sm_.l1().ways_in_use() * spec_.memory.l1d.sets * spec_.memory.l1d.line_bytes, 128u * 1024);
  EXPECT_EQ(stats_.l1.global_ld_hit_sectors, 2048u);
  sm_.clear_requests();
  run(block, 32);
  EXPECT_EQ(sm_.l1().ways_in_use() * spec_.memory.l1d.sets * spec_.memory.l1d.line_bytes, 32u * 1024);
  EXPECT_EQ(stats_.l1.global_ld_hit_sectors, 0u);
}

// Stores write through to the L2 and never allocate in the L1.
TEST_F(FunctionalSmTest, StoresWriteThroughWithoutAllocating) {
  const uint32_t store = script_.inst("STG.E", {}, {4, 2}, 4);
  BlockTrace block;
  script_.add(block, 0, store, line_of(0x30000));
  script_.add(block, 0, load_, line_of(0x30000));
  run(block, 128);
  EXPECT_EQ(stats_.global_st_sectors, 4u);
  EXPECT_EQ(stats_.l1.global_ld_hit_sectors, 0u) << "a store must not allocate the line in L1";
  EXPECT_EQ(l2_sectors(), 8u);
  EXPECT_EQ(l2_requests(), 2u) << "one request per instruction and line";
}

// Two lanes groups of one store writing different bytes of one sector: two
// writes of that sector reach the L2 (a request holds each sector once),
// and a sector two groups of one load miss on is fetched once.
TEST_F(FunctionalSmTest, ASectorTwoGroupsTouchIsWrittenTwiceAndFetchedOnce) {
  const uint32_t store = script_.inst("STG.E", {}, {4, 2}, 4);
  std::vector<uint64_t> lanes;
  for (uint64_t lane = 0; lane < 16; ++lane) lanes.push_back(0x50000 + 4 * (lane % 8));  // groups 0 and 1: bytes 0-31
  lanes[8] = 0x50000 + 32;  // group 1 also touches sector 1, between its two touches of sector 0
  BlockTrace block;
  script_.add(block, 0, store, lanes);
  script_.add(block, 0, load_, lanes);
  run(block, 128);
  std::vector<L2Request> all;
  for (uint32_t s = 0; s < map_.slices(); ++s)
    for (const L2Request& r : sm_.requests(s)) all.push_back(r);
  size_t writes = 0, reads = 0;
  for (const L2Request& r : all) {
    if (r.type == L2RequestType::kWrite) writes += size_t(std::popcount(r.sectors));
    if (r.type == L2RequestType::kRead) reads += size_t(std::popcount(r.sectors));
  }
  EXPECT_EQ(writes, 3u) << "sector 0 by group 0, sectors 1 and 0 by group 1";
  EXPECT_EQ(reads, 2u) << "sectors 0 and 1 once each";
  EXPECT_EQ(stats_.l1.miss_sectors, 2u);
  EXPECT_EQ(stats_.l1.fill_sectors, 2u);
}

// A misaligned warp load: each 8-lane group's 32 bytes straddle two sectors,
// so neighbouring groups touch their boundary sector twice. Each access is
// a sector lookup and a hit when its sector is present; a sector missed
// twice is fetched once, and a line's misses go to the L2 as one request.
TEST_F(FunctionalSmTest, ASectorAMisalignedLoadMeetsTwiceCountsTwiceAndIsFetchedOnce) {
  BlockTrace block;
  script_.add(block, 0, load_, line_of(0x40000 + 16));  // cold: sectors 0, 1, 1, 2, 2, 3, 3 of one line, 0 of the next
  script_.add(block, 0, load_, line_of(0x40000));       // sectors 0-3 of the first line: all present now
  script_.add(block, 0, load_, line_of(0x40000 + 16));  // again: 7 hits, the next line's sector too
  run(block, 128);
  EXPECT_EQ(stats_.global_ld_sectors, 8u + 4u + 8u);
  EXPECT_EQ(stats_.l1.global_ld_hit_sectors, 0u + 4u + 8u);
  EXPECT_EQ(stats_.l1.miss_sectors, 5u) << "the first load's 5 sectors, each once";
  EXPECT_EQ(stats_.l1.fill_sectors, 5u);
  EXPECT_EQ(l2_sectors(), 5u);
  EXPECT_EQ(l2_requests(), 2u) << "one request per line of the first load";
}

// The same load where an L2 line is half an L1 line (the L1's misses go to
// the L2 sector by sector): each missed sector is sent once, by its first
// access, though the load meets it twice.
TEST(FunctionalSmLines, AnL1SectorMissedTwiceGoesToAnL2OfOtherLinesOnce) {
  GpuSpec spec = load_gpu_spec("QV100");
  spec.memory.l2.line_bytes = 64;
  spec.validate();
  const AddressMap map(spec.memory);
  test::Script script(spec.sm);
  const uint32_t load = script.inst("LDG.E", {2}, {4}, 4);
  std::vector<uint64_t> lanes;
  for (uint64_t lane = 0; lane < 32; ++lane) lanes.push_back(0x40000 + 16 + 4 * lane);
  BlockTrace block;
  script.add(block, 0, load, lanes);
  FunctionalSm sm(spec, map);
  Occupancy o;
  o.blocks_per_sm = 1;
  o.warps_per_block = 1;
  o.l1_kb = 128;
  sm.start_kernel(script.program(), o);
  sm.give(std::make_unique<BlockTrace>(block));
  sm.run(false);
  size_t sent = 0;
  for (uint32_t s = 0; s < map.slices(); ++s)
    for (const L2Request& r : sm.requests(s)) sent += size_t(std::popcount(r.sectors));
  const SmStats stats = sm.take_stats();
  EXPECT_EQ(stats.global_ld_sectors, 8u);
  EXPECT_EQ(stats.l1.miss_sectors, 5u);
  EXPECT_EQ(sent, 5u) << "sectors 1, 2 and 3 are met twice and sent once";
}

// A load of every lane, back to back (lane k at first + k x size), stored in
// the trace as a stride takes a shorter path (counted per sector, not
// listed access by access), and so does such a store of whole sectors: the
// same lookups, counts and requests as the same addresses stored lane by
// lane, which take the general one. Random offsets, sizes and lane group
// widths, loads and stores mixed, on an L1 warmed by earlier loads.
TEST(FunctionalSmLoads, BackToBackLoadsAndStoresCountAsTheSameAddressesLaneByLane) {
  std::mt19937_64 rng(7);
  for (uint32_t group : {8u, 1u, 4u, 16u, 32u}) {
    GpuSpec spec = load_gpu_spec("QV100");
    spec.sm.coalesce_threads = group;
    spec.validate();
    const AddressMap map(spec.memory);
    test::Script script(spec.sm);
    std::vector<uint32_t> loads;
    for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u}) loads.push_back(script.inst("LDG.E", {2}, {4}, bytes));
    std::vector<uint32_t> stores;
    for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u}) stores.push_back(script.inst("STG.E", {}, {4, 2}, bytes));
    BlockTrace strided, lanewise;
    for (BlockTrace* b : {&strided, &lanewise}) {
      b->warps.emplace_back();
      b->warps.back().warp_id = 0;
    }
    for (int i = 0; i < 400; ++i) {
      const uint32_t which = uint32_t(rng() % loads.size());
      const uint64_t bytes = uint64_t(1) << which;
      const uint64_t first = 0x100000 + (rng() % 4096) * (rng() % 2 ? 1 : bytes * (rng() % 2 ? 1 : 32));
      const uint32_t inst = rng() % 3 == 0 ? stores[which] : loads[which];
      std::array<uint64_t, 32> a;
      for (uint64_t k = 0; k < 32; ++k) a[k] = first + k * bytes;
      WarpTrace& s = strided.warps[0];
      s.insts.push_back({inst, 0xffffffffu, s.addrs.append(a.data(), 32)});
      WarpTrace& l = lanewise.warps[0];
      l.insts.push_back({inst, 0xffffffffu, l.addrs.append_lanes(a.data(), 32)});
      uint64_t f = 0, st = 0;
      ASSERT_TRUE(s.addrs.strided(s.insts.back().addr_ref, 32, &f, &st));
      ASSERT_FALSE(l.addrs.strided(l.insts.back().addr_ref, 32, &f, &st));
    }
    std::vector<SmStats> stats;
    std::vector<std::vector<L2Request>> requests;
    for (const BlockTrace* b : {&strided, &lanewise}) {
      FunctionalSm sm(spec, map);
      Occupancy o;
      o.blocks_per_sm = 1;
      o.warps_per_block = 1;
      o.l1_kb = 32;
      sm.start_kernel(script.program(), o);
      sm.give(std::make_unique<BlockTrace>(*b));
      sm.run(false);
      requests.emplace_back();
      for (uint32_t sl = 0; sl < map.slices(); ++sl)
        for (const L2Request& r : sm.requests(sl)) requests.back().push_back(r);
      stats.push_back(sm.take_stats());
    }
    SCOPED_TRACE("lane groups of " + std::to_string(group));
    EXPECT_EQ(stats[0].global_ld_requests, stats[1].global_ld_requests);
    EXPECT_EQ(stats[0].global_ld_sectors, stats[1].global_ld_sectors);
    EXPECT_EQ(stats[0].l1.global_ld_hit_sectors, stats[1].l1.global_ld_hit_sectors);
    EXPECT_GT(stats[0].l1.global_ld_hit_sectors, 0u);
    EXPECT_EQ(stats[0].l1.miss_sectors, stats[1].l1.miss_sectors);
    EXPECT_EQ(stats[0].l1.fill_sectors, stats[1].l1.fill_sectors);
    EXPECT_EQ(stats[0].global_st_requests, stats[1].global_st_requests);
    EXPECT_EQ(stats[0].global_st_sectors, stats[1].global_st_sectors);
    EXPECT_GT(stats[0].global_st_sectors, 0u);
    ASSERT_EQ(requests[0].size(), requests[1].size());
    for (size_t i = 0; i < requests[0].size(); ++i) {
      const L2Request &x = requests[0][i], &y = requests[1][i];
      EXPECT_TRUE(x.step == y.step && x.line == y.line && x.sectors == y.sectors && x.type == y.type &&
                  x.byte_mask == y.byte_mask)
          << i;
    }
  }
}

// A block waits for a free slot: with one block per SM, the second given
// block's warps run only after the first block retired, and run() stops when
// a slot frees with more blocks to come.
TEST_F(FunctionalSmTest, ABlockBecomesResidentWhenASlotFrees) {
  BlockTrace first, second;
  script_.add(first, 0, load_, line_of(0x40000));
  script_.add(second, 0, load_, line_of(0x40000));
  Occupancy o;
  o.blocks_per_sm = 1;
  o.warps_per_block = 1;
  o.l1_kb = 128;
  sm_.start_kernel(script_.program(), o);
  sm_.give(std::make_unique<BlockTrace>(first));
  sm_.run(true);  // the first block retires; the second is not given yet
  EXPECT_EQ(sm_.take_stats().blocks_launched, 1u);
  EXPECT_TRUE(sm_.idle());
  sm_.give(std::make_unique<BlockTrace>(second));
  sm_.run(false);
  const SmStats s = sm_.take_stats();
  EXPECT_EQ(s.blocks_launched, 1u);
  EXPECT_EQ(s.l1.global_ld_hit_sectors, 4u) << "the second block runs after the first, on the same L1";
}

// Blocks of a vector, in order.
class VectorCursor : public BlockCursor {
 public:
  explicit VectorCursor(std::vector<BlockTrace> blocks) : blocks_(std::move(blocks)) {}
  bool next(BlockTrace& out) override {
    if (next_ == blocks_.size()) return false;
    out = blocks_[next_++];
    return true;
  }

 private:
  std::vector<BlockTrace> blocks_;
  size_t next_ = 0;
};

// Block i goes to SM i (round robin), and each L2 slice takes the SMs'
// requests by (step, SM id): SM 0's first load, SM 1's first, SM 0's second,
// SM 1's second. In a one-line L2 the two SMs' lines then evict each other
// every time (4 DRAM reads, no hit), on one thread or several; SM 0's
// requests all before SM 1's would hit twice.
TEST(FunctionalGpuRules, TheL2TakesTheSmsRequestsByStepThenSm) {
  GpuSpec spec = load_gpu_spec("QV100");
  spec.sms = 2;
  spec.memory.l2.sets = 1;
  spec.memory.l2.ways = 1;
  spec.memory.l2.set_hash = IndexHash::kLinear;
  spec.memory.l1d.cache_global = false;  // every load reaches the L2
  const AddressMap map(spec.memory);
  const uint64_t a = 0x100000;
  uint64_t b = a + 128;
  while (map.slice(b) != map.slice(a)) b += 128;
  for (uint32_t threads : {1u, 2u}) {
    test::Script script(spec.sm);
    const uint32_t load = script.inst("LDG.E", {2}, {4}, 4);
    std::vector<BlockTrace> blocks(2);
    for (int i = 0; i < 2; ++i) {
      script.add(blocks[0], 0, load, {a});
      script.add(blocks[1], 0, load, {b});
    }
    FunctionalGpu gpu(spec, threads, true);
    VectorCursor cursor(blocks);
    Occupancy o;
    o.blocks_per_sm = 1;
    o.warps_per_block = 1;
    o.l1_kb = 128;
    const FunctionalKernelResult r = gpu.run_kernel(script.program(), script.table(), cursor, o);
    EXPECT_EQ(r.sm_stats.at(0).global_ld_sectors, 2u) << "block 0 on SM 0";
    EXPECT_EQ(r.sm_stats.at(1).global_ld_sectors, 2u) << "block 1 on SM 1";
    EXPECT_EQ(r.memory.l2.read_sectors, 4u);
    EXPECT_EQ(r.memory.l2.read_hits, 0u) << threads << " thread(s)";
    EXPECT_EQ(r.memory.dram.read_sectors, 4u) << threads << " thread(s)";
  }
}

}  // namespace
}  // namespace lockstep
