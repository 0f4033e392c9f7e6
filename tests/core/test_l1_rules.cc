// One named test per rule of the SM's L1 data cache and its coalescer
// (papers/volta-memory-system.txt §III-A, §III-C), on scripted warps with a
// fixed-latency responder below the L1 (tests/core/sm_script.h).
#include <gtest/gtest.h>

#include <set>

#include "tests/core/sm_script.h"

namespace lockstep {
namespace {

using test::Script;
using test::test_spec;

L1dSpec small_l1(uint32_t sets, uint32_t ways) {
  L1dSpec l1;
  l1.sets = sets;
  l1.ways = ways;
  l1.adaptive = false;
  l1.hit_latency = 20;
  l1.mshr_entries = 256;
  l1.miss_queue = 64;
  return l1;
}

std::vector<uint64_t> line_addrs(uint64_t base, uint32_t lanes = 32, uint64_t stride = 4) {
  std::vector<uint64_t> a;
  for (uint32_t t = 0; t < lanes; ++t) a.push_back(base + t * stride);
  return a;
}

// The read packets the L1 sent below it.
size_t reads(const Script::MemoryLog& log) {
  size_t n = 0;
  for (const MemPacket& p : log.requests) n += p.type == MemPacketType::kRead;
  return n;
}

// mb1 of Fig. 3: thread t reads float A[(t / stride) * 32 + t % stride].
// Sector reads per warp (Fig. 4): 32 at stride 1 (every thread its own
// line), 4 at stride 32 (one line, four sectors); each group of 8 threads
// coalesces on its own.
TEST(L1Rules, CoalescerMicrobenchmarkSectorReadsPerWarp) {
  std::map<uint32_t, size_t> measured;
  for (uint32_t stride = 1; stride <= 32; ++stride) {
    Script s(test_spec());
    BlockTrace b;
    std::vector<uint64_t> addrs;
    for (uint64_t t = 0; t < 32; ++t) addrs.push_back(0x100000 + 4 * ((t / stride) * 32 + t % stride));
    s.add(b, 0, s.inst("LDG.E", {10}, {2}, 4), addrs);
    Script::MemoryLog log;
    s.run_with_memory(b, small_l1(4, 64), 100, &log);
    // Independent count from the rule: distinct (8-thread group, 32 B sector)
    // pairs are the L1 sector reads; distinct sectors go below the L1 (groups
    // sharing a sector merge in its MSHR entry).
    std::set<std::pair<uint64_t, uint64_t>> pairs;
    std::set<uint64_t> sectors;
    for (uint64_t t = 0; t < 32; ++t) {
      pairs.insert({t / 8, addrs[t] / 32});
      sectors.insert(addrs[t] / 32);
    }
    EXPECT_EQ(s.stats().global_ld_sectors, pairs.size()) << "stride " << stride;
    EXPECT_EQ(reads(log), sectors.size()) << "stride " << stride;
    EXPECT_EQ(s.stats().l1.mshr_merges, pairs.size() - sectors.size()) << "stride " << stride;
    measured[stride] = s.stats().global_ld_sectors;
  }
  EXPECT_EQ(measured[1], 32u);
  EXPECT_EQ(measured[2], 16u);
  EXPECT_EQ(measured[4], 8u);
  EXPECT_EQ(measured[8], 4u);
  EXPECT_EQ(measured[16], 4u);
  EXPECT_EQ(measured[32], 4u);
}

// Lines are 128 B and evicted whole; sectors are filled 32 B at a time.
TEST(L1Rules, EvictionIsPerLineFillsArePerSector) {
  Script s(test_spec());
  BlockTrace b;
  const uint32_t ld = s.inst("LDG.E", {10}, {2}, 4);
  const uint32_t use = s.inst("FADD", {11}, {10, 10});  // waits for the load
  auto load = [&](std::vector<uint64_t> a) {
    s.add(b, 0, ld, a);
    s.add(b, 0, use);
  };
  load({0x1000});          // line A sector 0: miss
  load({0x1000 + 32});     // line A sector 1: miss (a sector fill, not a line fill)
  load({0x1000, 0x1020});  // both present: hits
  load({0x2000});          // line B in the same (only) set and way: evicts all of A
  load({0x1020});          // A's sector 1 is gone with its line: miss
  Script::MemoryLog log;
  s.run_with_memory(b, small_l1(1, 1), 50, &log);
  ASSERT_EQ(reads(log), 4u);
  EXPECT_EQ(log.requests[0].addr, 0x1000u);
  EXPECT_EQ(log.requests[1].addr, 0x1020u);
  EXPECT_EQ(log.requests[2].addr, 0x2000u);
  EXPECT_EQ(log.requests[3].addr, 0x1020u);
  EXPECT_EQ(s.stats().l1.global_ld_hit_sectors, 2u);
  EXPECT_EQ(s.stats().l1.fill_sectors, 4u);
}

// Streaming: misses take MSHRs, not lines, so a one-line L1 keeps sending
// misses for many lines before any data is back; only the MSHRs bound it.
TEST(L1Rules, StreamingL1KeepsIssuingMissesWhenTheDataArrayIsFull) {
  auto run = [](uint32_t mshrs, Script::MemoryLog& log) {
    Script s(test_spec());
    BlockTrace b;
    for (uint16_t i = 0; i < 16; ++i) s.add(b, 0, s.inst("LDG.E", {uint16_t(10 + i)}, {2}, 4), {0x10000 + 4096u * i});
    L1dSpec l1 = small_l1(1, 1);
    l1.mshr_entries = mshrs;
    s.run_with_memory(b, l1, 1000, &log);
    return s.stats();
  };
  Script::MemoryLog many, few;
  const SmStats a = run(64, many), b = run(4, few);
  ASSERT_EQ(reads(many), 16u);
  EXPECT_LT(many.request_cycles.back(), 1000u);  // all sixteen out before the first reply
  EXPECT_EQ(a.l1.reservation_fails, 0u);
  ASSERT_EQ(reads(few), 16u);
  EXPECT_GT(few.request_cycles[4], 1000u);  // the fifth waits for an MSHR
  EXPECT_GT(b.l1.reservation_fails, 0u);
}

// A miss to a sector already outstanding merges into its MSHR entry.
TEST(L1Rules, MissesToAnOutstandingSectorMerge) {
  Script s(test_spec());
  BlockTrace b;
  s.add(b, 0, s.inst("LDG.E", {10}, {2}, 4), {0x3000});
  s.add(b, 1, s.inst("LDG.E", {10}, {2}, 4), {0x3004});
  Script::MemoryLog log;
  s.run_with_memory(b, small_l1(4, 4), 200, &log);
  EXPECT_EQ(reads(log), 1u);
  EXPECT_EQ(s.stats().l1.mshr_merges, 1u);
}

// Global stores write through to the L2 and never allocate in the L1.
TEST(L1Rules, StoresWriteThroughWithoutAllocating) {
  Script s(test_spec());
  BlockTrace b;
  s.add(b, 0, s.inst("STG.E", {}, {2, 3}, 4), line_addrs(0x4000, 8));
  s.add(b, 0, s.inst("LDG.E", {10}, {2}, 4), {0x4000});
  Script::MemoryLog log;
  s.run_with_memory(b, small_l1(4, 4), 30, &log);
  ASSERT_EQ(log.requests.size(), 2u);
  EXPECT_EQ(log.requests[0].type, MemPacketType::kWrite);
  EXPECT_EQ(log.requests[0].byte_mask, 0xffffffffu);  // 8 threads x 4 B: the whole sector
  EXPECT_EQ(log.requests[1].type, MemPacketType::kRead);  // the store did not allocate
  EXPECT_EQ(s.stats().l1.global_ld_hit_sectors, 0u);
}

// Atomics bypass the L1 and execute below it.
TEST(L1Rules, AtomicsGoToTheL2) {
  Script s(test_spec());
  BlockTrace b;
  s.add(b, 0, s.inst("ATOMG.E.ADD", {10}, {2, 3}, 4), {0x5000, 0x5004});
  Script::MemoryLog log;
  s.run_with_memory(b, small_l1(4, 4), 30, &log);
  ASSERT_EQ(log.requests.size(), 1u);
  EXPECT_EQ(log.requests[0].type, MemPacketType::kAtomic);
  EXPECT_EQ(log.requests[0].byte_mask, 0xffu);
}

// A hit's data is there hit_latency cycles after its lookup, which is the
// cycle after issue; a miss's when the reply is back.
TEST(L1Rules, HitLatencyAndMissLatency) {
  auto gap = [](uint64_t memory_latency, bool warm) {
    Script s(test_spec());
    BlockTrace b;
    const uint32_t ld = s.inst("LDG.E", {10}, {2}, 4);
    const uint32_t use = s.inst("FADD", {11}, {10, 10});
    if (warm) {
      s.add(b, 0, ld, {0x6000});
      s.add(b, 0, use);
    }
    s.add(b, 0, ld, {0x6000});
    s.add(b, 0, use);
    std::vector<Script::Issue> issues;
    s.run_with_memory(b, small_l1(4, 4), memory_latency, nullptr, &issues);
    const size_t n = issues.size();
    return issues[n - 1].cycle - issues[n - 2].cycle;
  };
  EXPECT_EQ(gap(100, true), 1 + 20u);  // lookup next cycle + l1d.hit_latency
  // Miss: lookup (1), staged and visible below after the commit (1), memory latency, reply visible after the commit (1).
  const uint64_t miss = gap(100, false);
  EXPECT_EQ(gap(150, false), miss + 50);
  EXPECT_GT(miss, 100u);
}

}  // namespace
}  // namespace lockstep

namespace lockstep {
namespace {

// The LD/ST unit's instruction queue: with one entry a warp's second load
// waits until the L1 has looked up every line of the first; with more, it
// issues at once and the L1 works through the queue.
TEST(L1Rules, LdstQueueLetsLoadsIssueWhileTheL1LooksUp) {
  auto second_issue = [](uint32_t entries) {
    SmSpec spec = test::test_spec();
    spec.ldst_queue_entries = entries;
    Script s(spec);
    BlockTrace b;
    std::vector<uint64_t> four_lines;  // float4 per lane: 512 B, 4 lines, 4 lookup cycles
    for (uint64_t t = 0; t < 32; ++t) four_lines.push_back(0x8000 + 16 * t);
    s.add(b, 0, s.inst("LDG.E.128", {10}, {2}, 16), four_lines);
    s.add(b, 0, s.inst("LDG.E.128", {20}, {2}, 16), four_lines);
    std::vector<Script::Issue> issues;
    s.run_with_memory(b, small_l1(4, 64), 50, nullptr, &issues);
    return issues.at(1).cycle - issues.at(0).cycle;
  };
  EXPECT_EQ(second_issue(1), 4u);  // lookups at +1..+4; the unit frees in the 4th lookup cycle
  EXPECT_EQ(second_issue(2), 1u);
}

}  // namespace
}  // namespace lockstep
