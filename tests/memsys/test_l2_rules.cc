// L2 slice rules (volta-memory-system.txt §III-B): write-validate with lazy
// fetch on read, write-back of dirty sectors only, MSHR merging and
// reservation fails, atomics after a fetch, the copy engine's warm data.
// One channel, one sub-partition, linear hashing: slice-local == global.
#include "memsys/l2_slice.h"

#include <gtest/gtest.h>

#include <deque>
#include <utility>
#include <vector>

#include "memsys/mshr_table.h"

namespace lockstep {
namespace {

constexpr uint32_t kLatency = 10;      // L2 cycles, accept -> hit reply
constexpr uint32_t kDramLatency = 20;  // test DRAM: request popped at t -> fill offered at t + 20

MemorySpec test_spec(uint32_t sets, uint32_t ways, uint32_t mshrs, uint32_t merge) {
  MemorySpec s;
  s.dram.channels = 1;
  s.l2.subpartitions = 1;
  s.l2.partition_hash = IndexHash::kLinear;
  s.l2.set_hash = IndexHash::kLinear;
  s.l2.sets = sets;
  s.l2.ways = ways;
  s.l2.latency = kLatency;
  s.l2.mshr_entries = mshrs;
  s.l2.mshr_max_merge = merge;
  s.l2.atomic_latency = 4;
  s.validate();
  return s;
}

MemPacket packet(MemPacketType type, uint64_t addr, uint32_t mask = 0, uint32_t token = 0, uint8_t slot = 0) {
  MemPacket p;
  p.type = type;
  p.addr = addr;
  p.byte_mask = mask;
  p.token = token;
  p.stat_slot = slot;
  return p;
}

// Drives one slice with a fixed-latency DRAM and records everything it emits.
struct Bench {
  explicit Bench(const MemorySpec& s) : spec(s), map(spec), slice(0, spec.l2, map) {}

  // Accept at the current cycle (waiting for room), then run that cycle.
  void send(const MemPacket& p) {
    while (!slice.can_accept()) step();
    slice.accept(p, now);
    step();
  }
  void step() {
    while (!dram_reads.empty() && dram_reads.front().first <= now && slice.can_fill()) {
      slice.fill(dram_reads.front().second, now);
      dram_reads.pop_front();
    }
    slice.cycle(now);
    while (slice.has_reply(now)) {
      replies.emplace_back(now, slice.reply());
      slice.pop_reply();
    }
    while (slice.has_dram_request()) {
      const DramRequest r = slice.dram_request();
      slice.pop_dram_request();
      (r.write ? dram_writes : dram_read_log).push_back(r);
      if (!r.write) dram_reads.emplace_back(now + kDramLatency, r);
    }
    ++now;
  }
  void run_until_idle() {
    for (int guard = 0; guard < 10000 && !(slice.idle() && dram_reads.empty()); ++guard) step();
    ASSERT_TRUE(slice.idle());
  }
  // Send and wait for the reply (a dependent access, as one thread issues them).
  uint64_t access(const MemPacket& p) {
    const size_t before = replies.size();
    const uint64_t sent = now;
    send(p);
    while (replies.size() == before) step();
    return replies.back().first - sent;  // cycles to the reply
  }

  MemorySpec spec;
  AddressMap map;
  L2Slice slice;
  uint64_t now = 0;
  std::vector<std::pair<uint64_t, MemPacket>> replies;
  std::vector<DramRequest> dram_read_log, dram_writes;
  std::deque<std::pair<uint64_t, DramRequest>> dram_reads;  // (ready, request) to fill
};

TEST(L2Rules, HitRepliesLatencyCyclesAfterAcceptOnePerCycle) {
  Bench b(test_spec(4, 4, 8, 4));
  b.slice.warm(0, 32);
  b.slice.warm(32, 32);
  b.slice.accept(packet(MemPacketType::kRead, 0, 0, 1), 0);
  EXPECT_FALSE(b.slice.can_accept());  // one request per L2 cycle
  b.step();
  b.send(packet(MemPacketType::kRead, 32, 0, 2));
  b.run_until_idle();
  ASSERT_EQ(b.replies.size(), 2u);
  EXPECT_EQ(b.replies[0].first, kLatency);
  EXPECT_EQ(b.replies[0].second.type, MemPacketType::kReadReply);
  EXPECT_EQ(b.replies[0].second.token, 1u);
  EXPECT_EQ(b.replies[1].first, kLatency + 1);
  EXPECT_TRUE(b.dram_read_log.empty());
}

TEST(L2Rules, Fig5WriteValidateThenLazyFetchOnRead) {
  Bench b(test_spec(4, 4, 8, 4));
  const uint64_t A = 0x1000, C = 0x2000;  // float A[i] at A, C[i] at C, C[i+1] at C + 4
  // 3. C[i] = A[i]: the read of A goes to DRAM; the write of C[i] misses its line and reads nothing.
  EXPECT_EQ(b.access(packet(MemPacketType::kRead, A)), kLatency + kDramLatency);
  EXPECT_EQ(b.access(packet(MemPacketType::kWrite, C, 0x0000000f)), kLatency);
  EXPECT_EQ(b.dram_read_log.size(), 1u);
  // 4. C[i+1] = A[i]: the line is present, a write hit.
  EXPECT_EQ(b.access(packet(MemPacketType::kWrite, C, 0x000000f0)), kLatency);
  // 5. C[i] = C[i] + A[i]: C[i]'s sector holds 8 of 32 bytes: read from DRAM and merged.
  EXPECT_EQ(b.slice.cache().probe(C), SectorState::kPartial);
  EXPECT_EQ(b.access(packet(MemPacketType::kRead, C)), kLatency + kDramLatency);
  EXPECT_EQ(b.access(packet(MemPacketType::kWrite, C, 0x0000000f)), kLatency);
  // 6. A[i] = C[i] + C[i+1]: both reads hit the now complete sector.
  EXPECT_EQ(b.access(packet(MemPacketType::kRead, C)), kLatency);
  EXPECT_EQ(b.access(packet(MemPacketType::kRead, C + 4)), kLatency);
  EXPECT_EQ(b.access(packet(MemPacketType::kWrite, A, 0x0000000f)), kLatency);
  b.run_until_idle();

  ASSERT_EQ(b.dram_read_log.size(), 2u);  // A, and C[i]'s sector once
  EXPECT_EQ(b.dram_read_log[0].addr, A);
  EXPECT_EQ(b.dram_read_log[1].addr, C);
  EXPECT_TRUE(b.dram_writes.empty());
  const L2SliceStats st = b.slice.take_stats(0);
  EXPECT_EQ(st.read_sectors, 4u);
  EXPECT_EQ(st.read_hits, 2u);
  EXPECT_EQ(st.write_sectors, 4u);
  EXPECT_EQ(st.write_hits, 3u);
  EXPECT_EQ(st.fill_sectors, 2u);
  EXPECT_EQ(st.writeback_sectors, 0u);
}

TEST(L2Rules, FullyWrittenSectorIsReadWithoutDram) {
  Bench b(test_spec(4, 4, 8, 4));
  b.access(packet(MemPacketType::kWrite, 0x40, 0x0000ffff));
  b.access(packet(MemPacketType::kWrite, 0x40, 0xffff0000));
  EXPECT_EQ(b.access(packet(MemPacketType::kRead, 0x40)), kLatency);
  b.run_until_idle();
  EXPECT_TRUE(b.dram_read_log.empty());
  const L2SliceStats st = b.slice.take_stats(0);
  EXPECT_EQ(st.read_hits, 1u);
  EXPECT_EQ(st.write_hits, 1u);  // the second write found the line
}

TEST(L2Rules, EvictionWritesBackDirtySectorsOnly) {
  Bench b(test_spec(1, 2, 8, 4));  // one set of two ways
  b.access(packet(MemPacketType::kWrite, 0x20, 0xffffffff));  // line 0, sector 1: dirty, full
  b.access(packet(MemPacketType::kWrite, 0x60, 0x0000000f));  // line 0, sector 3: dirty, 4 bytes
  b.access(packet(MemPacketType::kRead, 0x00));               // line 0, sector 0: clean fill
  b.access(packet(MemPacketType::kWrite, 0x80, 0xffffffff));  // line 1
  EXPECT_TRUE(b.dram_writes.empty());
  // Line 2 evicts the LRU line 0 (last used by the fill of sector 0).
  b.access(packet(MemPacketType::kWrite, 0x100, 0xffffffff));
  b.run_until_idle();
  ASSERT_EQ(b.dram_writes.size(), 2u);
  EXPECT_EQ(b.dram_writes[0].addr, 0x20u);
  EXPECT_EQ(b.dram_writes[1].addr, 0x60u);
  EXPECT_EQ(b.dram_writes[0].column, 1u);
  EXPECT_EQ(b.dram_read_log.size(), 1u);
  EXPECT_EQ(b.slice.cache().probe(0x00), SectorState::kLineMiss);
  EXPECT_EQ(b.slice.take_stats(0).writeback_sectors, 2u);
}

TEST(L2Rules, FillEvictionWritesBackDirtySectors) {
  Bench b(test_spec(1, 1, 8, 4));  // one line
  b.access(packet(MemPacketType::kWrite, 0x00, 0xffffffff));
  b.access(packet(MemPacketType::kRead, 0x80));  // allocates on fill, evicting dirty line 0
  b.run_until_idle();
  ASSERT_EQ(b.dram_writes.size(), 1u);
  EXPECT_EQ(b.dram_writes[0].addr, 0x00u);
  EXPECT_EQ(b.slice.cache().probe(0x80), SectorState::kHit);
}

TEST(L2Rules, MshrMergesMissesToOutstandingSector) {
  Bench b(test_spec(4, 4, 8, 2));
  b.send(packet(MemPacketType::kRead, 0x40, 0, 1));  // accepted at 0: lookup 10, DRAM 10, fill 30
  b.send(packet(MemPacketType::kRead, 0x40, 0, 2));  // 1: merges
  b.send(packet(MemPacketType::kRead, 0x48, 0, 3));  // 2: same sector, entry full (2): waits for the fill
  b.run_until_idle();
  ASSERT_EQ(b.dram_read_log.size(), 1u);
  ASSERT_EQ(b.replies.size(), 3u);
  // The fill releases token 1 at 30 and token 2 at 31; token 3 looks up at 30 and hits.
  EXPECT_EQ(b.replies[0].first, 30u);
  EXPECT_EQ(b.replies[0].second.token, 1u);
  EXPECT_EQ(b.replies[1].first, 30u);
  EXPECT_EQ(b.replies[1].second.token, 3u);
  EXPECT_EQ(b.replies[2].first, 31u);
  EXPECT_EQ(b.replies[2].second.token, 2u);
  const L2SliceStats st = b.slice.take_stats(0);
  EXPECT_EQ(st.mshr_merges, 1u);
  EXPECT_EQ(st.reservation_fails, 18u);  // cycles 12 .. 29
  EXPECT_EQ(st.read_sectors, 3u);
  EXPECT_EQ(st.read_hits, 1u);
}

TEST(L2Rules, ReservationFailsWhileMshrsAreFull) {
  Bench b(test_spec(4, 4, 2, 4));  // two MSHR entries
  b.send(packet(MemPacketType::kRead, 0x000, 0, 1));
  b.send(packet(MemPacketType::kRead, 0x100, 0, 2));
  b.send(packet(MemPacketType::kRead, 0x200, 0, 3, /*slot=*/5));
  b.run_until_idle();
  ASSERT_EQ(b.dram_read_log.size(), 3u);
  ASSERT_EQ(b.replies.size(), 3u);
  // The third misses at 12 with both entries taken; the first fill (30) frees one.
  EXPECT_EQ(b.replies[0].first, 30u);
  EXPECT_EQ(b.replies[1].first, 31u);
  EXPECT_EQ(b.replies[2].first, 50u);
  EXPECT_EQ(b.replies[2].second.token, 3u);
  EXPECT_EQ(b.slice.take_stats(5).reservation_fails, 18u);  // counted in the waiting request's slot
  EXPECT_EQ(b.slice.take_stats(0).reservation_fails, 0u);
}

TEST(L2Rules, AtomicFetchesThenRunsInTheAtomicUnit) {
  Bench b(test_spec(4, 4, 8, 4));
  // Not present: fetched like a read (lookup 10, fill 30), then 4 cycles of atomic unit.
  EXPECT_EQ(b.access(packet(MemPacketType::kAtomic, 0x40, 0x0000000f)), kLatency + kDramLatency + 4);
  EXPECT_EQ(b.replies.back().second.type, MemPacketType::kAtomicReply);
  EXPECT_EQ(b.slice.cache().dirty_sectors(), 1u);
  // Now readable: no DRAM.
  EXPECT_EQ(b.access(packet(MemPacketType::kAtomic, 0x40, 0x000000f0)), kLatency + 4);
  // A partly written sector is not readable: the atomic fetches it first.
  b.access(packet(MemPacketType::kWrite, 0x80, 0x0000000f));
  EXPECT_EQ(b.access(packet(MemPacketType::kAtomic, 0x80, 0x000000f0)), kLatency + kDramLatency + 4);
  b.run_until_idle();
  EXPECT_EQ(b.dram_read_log.size(), 2u);
  const L2SliceStats st = b.slice.take_stats(0);
  EXPECT_EQ(st.atomic_sectors, 3u);
  EXPECT_EQ(st.read_sectors, 0u);
}

TEST(L2Rules, WarmedDataIsReadWithoutDram) {
  Bench b(test_spec(4, 4, 8, 4));
  b.slice.warm(0x100, 32);
  b.slice.warm(0x120, 16);  // half a sector: not readable
  EXPECT_EQ(b.access(packet(MemPacketType::kRead, 0x100)), kLatency);
  EXPECT_EQ(b.access(packet(MemPacketType::kRead, 0x120)), kLatency + kDramLatency);
  b.run_until_idle();
  ASSERT_EQ(b.dram_read_log.size(), 1u);
  EXPECT_EQ(b.dram_read_log[0].addr, 0x120u);
  EXPECT_EQ(b.slice.cache().dirty_sectors(), 2u);  // copied data is dirty (not yet in DRAM)
  EXPECT_EQ(b.slice.take_stats(0).read_hits, 1u);
}

TEST(L2Rules, DramRequestsCarryTheDecodedAddress) {
  MemorySpec s = test_spec(4, 4, 8, 4);
  Bench b(s);
  const uint64_t addr = 5 * kDramRowBytes * 16 + 3 * kDramRowBytes + 7 * 32;  // row 5, bank 3, column 7
  b.access(packet(MemPacketType::kRead, addr, 0, 0, 2));
  ASSERT_EQ(b.dram_read_log.size(), 1u);
  EXPECT_EQ(b.dram_read_log[0].row, 5u);
  EXPECT_EQ(b.dram_read_log[0].bank, 3u);
  EXPECT_EQ(b.dram_read_log[0].column, 7u);
  EXPECT_EQ(b.dram_read_log[0].stat_slot, 2u);
  EXPECT_FALSE(b.dram_read_log[0].write);
  EXPECT_EQ(b.slice.take_stats(2).fill_sectors, 1u);
}

TEST(MshrTable, MergesUpToTheLimitAndReleasesInArrivalOrder) {
  MshrTable<uint32_t> t(2, 3);
  EXPECT_TRUE(t.allocate(0x40, 7));
  EXPECT_FALSE(t.allocate(0x40, 8));  // already outstanding
  EXPECT_TRUE(t.merge(0x40, 8));
  EXPECT_TRUE(t.merge(0x40, 9));
  EXPECT_FALSE(t.merge(0x40, 10));  // 3 waiters max
  EXPECT_FALSE(t.merge(0x80, 1));   // not outstanding
  EXPECT_TRUE(t.allocate(0x80, 1));
  EXPECT_TRUE(t.full());
  EXPECT_FALSE(t.allocate(0xc0, 2));
  EXPECT_EQ(t.release(0x40), (std::vector<uint32_t>{7, 8, 9}));
  EXPECT_FALSE(t.probe(0x40));
  EXPECT_TRUE(t.probe(0x80));
  EXPECT_TRUE(t.allocate(0xc0, 2));
  EXPECT_EQ(t.release(0x80), (std::vector<uint32_t>{1}));
  EXPECT_EQ(t.release(0xc0), (std::vector<uint32_t>{2}));
  EXPECT_TRUE(t.empty());
}

TEST(MshrTable, IndexSurvivesManyInsertionsAndRemovals) {
  MshrTable<uint32_t> t(64, 1);
  std::vector<uint64_t> live;
  uint64_t next = 0;
  for (int round = 0; round < 2000; ++round) {
    if (live.size() < 64 && (round % 3 != 2)) {
      const uint64_t a = (next++ * 0x1f40) & ~uint64_t(31);
      ASSERT_TRUE(t.allocate(a, uint32_t(a)));
      live.push_back(a);
    } else if (!live.empty()) {
      const uint64_t a = live[size_t(round) % live.size()];
      ASSERT_EQ(t.release(a), (std::vector<uint32_t>{uint32_t(a)}));
      live.erase(live.begin() + std::ptrdiff_t(size_t(round) % live.size()));
    }
    ASSERT_EQ(t.size(), live.size());
  }
  for (uint64_t a : live) EXPECT_TRUE(t.probe(a));
}

}  // namespace
}  // namespace lockstep
