// The memory system's idle partitions and its idle() summary: a partition
// with nothing queued sleeps (its slices are not cycled, its channel only at
// its next_event), and idle() is told from the units' own summaries instead
// of from every port and block. Both must be invisible: idle() agrees with
// asking every block (every_block_idle) at every cycle, and a sleeping
// channel refreshes exactly as one cycled every DRAM cycle.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "memsys/dram_channel.h"
#include "memsys/memory_system.h"

namespace lockstep {
namespace {

constexpr uint32_t kSms = 4;

MemorySpec spec_with(bool per_bank_refresh) {
  MemorySpec s;
  s.dram.channels = 4;
  s.l2.subpartitions = 2;
  s.dram.tREFI = 160;
  s.dram.tRFC = 20;
  s.dram.per_bank_refresh = per_bank_refresh;
  s.validate();
  return s;
}

// One clock for every memory-side edge, the SMs' side of the ports played by the test.
// `skipping`: the units run as the GPU runs them (run_units: asleep
// partitions with nothing to do are skipped), else each by run_unit.
// `edge_pattern`: 0, every clock every cycle; 1, L2 edges in 2 of 3 cycles
// and DRAM edges in every other one (numbered in their own domains).
class Rig {
 public:
  explicit Rig(const MemorySpec& spec, bool skipping = false, int edge_pattern = 0)
      : spec_(spec), memory_(spec_, kSms, 2, MemoryTiming{}), skipping_(skipping), edge_pattern_(edge_pattern) {}

  MemorySystem& memory() { return memory_; }
  uint64_t now() const { return cycle_; }

  // One core cycle: `stage` may stage requests into the SMs' ports, the
  // units run, the SMs take every reply they can.
  template <typename Stage>
  void step(Stage&& stage) {
    memory_.begin_cycle(cycle_);
    stage(cycle_);
    MemoryEdge edges[3];
    size_t count = 0;
    edges[count++] = {MemoryClock::kIcnt, cycle_};
    if (edge_pattern_ == 0 || cycle_ % 3 != 2) edges[count++] = {MemoryClock::kL2, l2_cycle_++};
    if (edge_pattern_ == 0 || cycle_ % 2 == 0) edges[count++] = {MemoryClock::kDram, dram_cycle_++};
    if (skipping_) {
      memory_.run_units(0, memory_.units(), edges, count);
    } else {
      for (uint32_t u = 0; u < memory_.units(); ++u) memory_.run_unit(u, edges, count);
    }
    for (uint32_t sm = 0; sm < kSms; ++sm) {
      LatchedQueue<MemPacket>& port = memory_.reply_port(sm);
      port.receive();
      for (; !port.empty(); port.pop()) ++replies_;
      port.publish_pops();
    }
    ++cycle_;
  }
  void step() {
    step([](uint64_t) {});
  }
  uint64_t replies() const { return replies_; }

 private:
  MemorySpec spec_;
  MemorySystem memory_;
  const bool skipping_;
  const int edge_pattern_;
  uint64_t cycle_ = 0, l2_cycle_ = 0, dram_cycle_ = 0;
  uint64_t replies_ = 0;
};

// Bursts of random reads, writes and atomics from random SMs, with idle gaps
// long enough for the memory side to drain and its partitions to sleep.
TEST(MemorySystemIdle, IdleAgreesWithEveryBlockAtEveryCycle) {
  for (const bool per_bank : {false, true}) {
    SCOPED_TRACE(per_bank ? "per-bank refresh" : "all-bank refresh");
    Rig rig(spec_with(per_bank));
    std::mt19937_64 rng(7);
    uint64_t sent = 0, idle_cycles = 0, busy_cycles = 0;
    for (int burst = 0; burst < 40; ++burst) {
      const uint32_t requests = uint32_t(rng() % 12);  // 0: a gap only
      const uint64_t burst_end = rig.now() + requests;
      rig.step([&](uint64_t) {});
      while (rig.now() < burst_end) {
        rig.step([&](uint64_t) {
          const uint32_t sm = uint32_t(rng() % kSms);
          LatchedQueue<MemPacket>& port = rig.memory().request_port(sm);
          if (!port.can_stage()) return;
          MemPacket p;
          p.sm = uint16_t(sm);
          // A few hundred KB: L2 hits, misses and dirty victims' write-backs.
          p.addr = (rng() % 8192) * 32;
          const uint32_t kind = uint32_t(rng() % 4);
          p.type = kind == 0 ? MemPacketType::kWrite : kind == 1 ? MemPacketType::kAtomic : MemPacketType::kRead;
          p.byte_mask = p.type == MemPacketType::kRead ? 0 : 0xffu;
          port.stage(p);
          ++sent;
        });
        ASSERT_EQ(rig.memory().idle(), rig.memory().every_block_idle()) << "cycle " << rig.now() - 1;
      }
      const uint64_t gap = 200 + rng() % 1500;
      for (uint64_t i = 0; i < gap; ++i) {
        rig.step();
        const bool idle = rig.memory().idle();
        ASSERT_EQ(idle, rig.memory().every_block_idle()) << "cycle " << rig.now() - 1;
        ++(idle ? idle_cycles : busy_cycles);
      }
    }
    EXPECT_EQ(rig.replies(), sent);
    EXPECT_GT(sent, 100u);
    EXPECT_GT(idle_cycles, 1000u);  // both answers were seen many times
    EXPECT_GT(busy_cycles, 1000u);
  }
}

// Skipping asleep partitions that have nothing to do, and dozing ones (only
// requests in their slices' tag pipelines) until one is ready (the GPU's
// run_units), changes nothing: every reply arrives in the same cycle and
// every counter of every block is the same as when every unit runs every
// cycle, with clocks that tick in every cycle and with clocks that skip
// some. (It fails when a dozing partition wakes a cycle late.)
TEST(MemorySystemIdle, SkippingAsleepAndDozingPartitionsChangesNoCycleAndNoCounter) {
  for (const int pattern : {0, 1}) {
    for (const bool per_bank : {false, true}) {
      SCOPED_TRACE(testing::Message() << "edge pattern " << pattern << (per_bank ? ", per-bank" : ", all-bank")
                                      << " refresh");
      const MemorySpec spec = spec_with(per_bank);
      Rig every(spec, false, pattern), skipping(spec, true, pattern);
      std::mt19937_64 rng(11);
      uint64_t sent = 0;
      for (int burst = 0; burst < 30; ++burst) {
        const uint64_t length = rng() % 10 + 1, gap = 100 + rng() % 1200;
        for (uint64_t i = 0; i < length + gap; ++i) {
          MemPacket p;
          bool send = false;
          if (i < length) {
            p.sm = uint16_t(rng() % kSms);
            p.addr = (rng() % 8192) * 32;
            const uint32_t kind = uint32_t(rng() % 4);
            p.type = kind == 0 ? MemPacketType::kWrite : kind == 1 ? MemPacketType::kAtomic : MemPacketType::kRead;
            p.byte_mask = p.type == MemPacketType::kRead ? 0 : 0xffu;
            send = true;
          }
          for (Rig* rig : {&every, &skipping})
            rig->step([&](uint64_t) {
              LatchedQueue<MemPacket>& port = rig->memory().request_port(p.sm);
              if (send && port.can_stage()) port.stage(p);
            });
          sent += send;
          ASSERT_EQ(skipping.replies(), every.replies()) << "cycle " << every.now() - 1;
          ASSERT_EQ(skipping.memory().idle(), every.memory().idle()) << "cycle " << every.now() - 1;
        }
      }
      EXPECT_GT(sent, 100u);
      EXPECT_GT(every.replies(), 100u);
      const MemoryInstanceStats a = every.memory().take_instance_stats(0), b = skipping.memory().take_instance_stats(0);
      EXPECT_TRUE(a.total() == b.total());
      ASSERT_EQ(a.dram.size(), b.dram.size());
      for (size_t ch = 0; ch < a.dram.size(); ++ch) {
        EXPECT_TRUE(a.dram[ch].stats == b.dram[ch].stats) << a.dram[ch].name;
        EXPECT_GT(a.dram[ch].stats.refreshes, 0u) << a.dram[ch].name;
      }
      for (size_t s = 0; s < a.l2.size(); ++s) EXPECT_TRUE(a.l2[s].stats == b.l2[s].stats) << a.l2[s].name;
    }
  }
}

// A partition that sleeps (no traffic at all, or none to it) still refreshes
// at the cycles a channel cycled every DRAM cycle does.
TEST(MemorySystemIdle, SleepingPartitionsRefreshLikeAChannelCycledEveryCycle) {
  for (const bool per_bank : {false, true}) {
    SCOPED_TRACE(per_bank ? "per-bank refresh" : "all-bank refresh");
    const MemorySpec spec = spec_with(per_bank);
    Rig rig(spec);
    DramChannel reference(0, spec.dram);
    constexpr uint64_t kCycles = 5000;
    // Traffic to two conflicting lines (DRAM reads and write-backs) for the
    // first cycles, at most two channels; the others see none.
    const uint64_t lines[] = {0x4000, 0x4000 + (uint64_t(1) << 24)};
    std::vector<bool> busy(spec.dram.channels, false);
    for (const uint64_t a : lines) busy[rig.memory().address_map().decode(a).channel] = true;
    for (uint64_t c = 0; c < kCycles; ++c) {
      rig.step([&](uint64_t now) {
        LatchedQueue<MemPacket>& port = rig.memory().request_port(0);
        if (now >= 500 || !port.can_stage()) return;
        MemPacket p;
        p.addr = lines[now % 2];
        p.type = now % 3 == 0 ? MemPacketType::kWrite : MemPacketType::kRead;
        p.byte_mask = p.type == MemPacketType::kWrite ? 0xffffffffu : 0;
        port.stage(p);
      });
      reference.cycle(c);
    }
    const uint64_t expected = reference.take_stats(0).refreshes;
    ASSERT_GT(expected, 10u);
    const MemoryInstanceStats inst = rig.memory().take_instance_stats(0);
    ASSERT_EQ(inst.dram.size(), spec.dram.channels);
    for (uint32_t ch = 0; ch < spec.dram.channels; ++ch) {
      if (busy[ch]) continue;  // traffic may delay refreshes
      EXPECT_EQ(inst.dram[ch].stats.refreshes, expected) << inst.dram[ch].name;
    }
  }
}

}  // namespace
}  // namespace lockstep
