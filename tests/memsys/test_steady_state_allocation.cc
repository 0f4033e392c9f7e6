// The memory side's cycle loop allocates nothing once its queues have seen
// their working sizes: an L2 slice and its DRAM channel under a steady
// stream of reads and writes (misses, fills, dirty write-backs, MSHR merges,
// replies) run thousands of cycles without a call to operator new. Counted
// by a replacement operator new of this test binary (test-only).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "configs/spec/memory_spec.h"
#include "memsys/address_map.h"
#include "memsys/dram_channel.h"
#include "memsys/l2_slice.h"
#include "memsys/ring_queue.h"

namespace {
std::atomic<uint64_t> allocations{0};
}  // namespace

// Every plain form is replaced, so that each allocation of the binary is
// released by its own kind (the sanitizers check new against delete). They
// are malloc and free underneath, which GCC's new/delete matching cannot see.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace lockstep {
namespace {

MemorySpec one_slice_spec() {
  MemorySpec s;
  s.dram.channels = 1;
  s.l2.subpartitions = 1;
  s.l2.partition_hash = IndexHash::kLinear;
  s.l2.set_hash = IndexHash::kLinear;
  s.l2.sets = 16;
  s.l2.ways = 4;  // 8 KB: the stream below evicts dirty lines all the time
  s.validate();
  return s;
}

// Runs `cycles` cycles of a read/write stream over 1 MB through the slice and
// the channel; the request stream restarts where the last call stopped.
struct SliceAndChannel {
  MemorySpec spec = one_slice_spec();
  AddressMap map{spec};
  L2Slice slice{0, spec.l2, map};
  DramChannel channel{0, spec.dram};
  uint64_t now = 0, next_addr = 0, replies = 0;

  void run(uint64_t cycles) {
    for (const uint64_t end = now + cycles; now < end; ++now) {
      if (slice.can_accept()) {
        MemPacket p;
        p.addr = next_addr;
        // Every third request writes (dirty lines, write-backs), and every
        // other read repeats the last address (MSHR merges).
        p.type = next_addr / 32 % 3 == 0 ? MemPacketType::kWrite : MemPacketType::kRead;
        if (p.type == MemPacketType::kWrite) p.byte_mask = 0xffffffffu;
        slice.accept(p, now);
        if (now % 2 == 0) next_addr = (next_addr + 32) % (1u << 20);
      }
      slice.cycle(now);
      if (slice.has_dram_request() && channel.can_accept(slice.dram_request().write)) {
        channel.push(slice.dram_request(), now);
        slice.pop_dram_request();
      }
      channel.cycle(now);
      while (channel.has_reply() && slice.can_fill()) {
        slice.fill(channel.reply(), now);
        channel.pop_reply();
      }
      while (slice.has_reply(now)) {
        slice.pop_reply();
        ++replies;
      }
    }
  }
};

TEST(SteadyStateAllocation, L2SliceAndDramChannelCyclesAllocateNothing) {
  SliceAndChannel s;
  s.run(50000);  // the queues reach their working sizes
  const uint64_t replies_before = s.replies;
  const uint64_t before = allocations.load();
  s.run(50000);
  const uint64_t after = allocations.load();
  ASSERT_GT(s.replies - replies_before, 10000u);  // the loop did move traffic
  ASSERT_GT(s.slice.stats(0).writeback_sectors, 0u);
  EXPECT_EQ(after - before, 0u);
}

TEST(SteadyStateAllocation, RingQueueReusesItsStorageAndGrowsWhenFull) {
  RingQueue<int> q(4);
  for (int round = 0; round < 3; ++round) {
    const uint64_t before = allocations.load();
    for (int i = 0; i < 1000; ++i) {
      q.push_back(i);
      q.push_back(i + 1);
      EXPECT_EQ(q.front(), i);
      q.pop_front();
      q.pop_front();
    }
    EXPECT_EQ(allocations.load() - before, 0u);
  }
  for (int i = 0; i < 9; ++i) q.push_back(i);  // past its capacity: it doubles, keeping the order
  EXPECT_EQ(q.capacity(), 16u);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(q.front(), i);
    q.pop_front();
  }
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace lockstep
