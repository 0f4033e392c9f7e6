// The memory side's statistics per block instance: names and order, each
// instance counting only its own traffic, the sum over the instances being
// the total MemoryStats reports, and taking resetting the counters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memsys/memory_system.h"

namespace lockstep {
namespace {

constexpr uint32_t kSms = 4;

MemorySpec small_spec() {
  MemorySpec s;
  s.dram.channels = 2;
  s.l2.subpartitions = 2;
  s.validate();
  return s;
}

// Sends `requests` through a memory system on one clock (every memory edge
// with each core cycle) until every reply is back.
struct Driver {
  explicit Driver(const MemorySpec& s) : spec(s), memory(spec, kSms, 1, MemoryTiming{}) {}

  void run(const std::vector<MemPacket>& requests) {
    size_t sent = 0, replied = 0;
    for (uint64_t cycle = 0; cycle < 200000 && (replied < requests.size() || !memory.idle()); ++cycle) {
      memory.begin_cycle(cycle);
      for (uint32_t sm = 0; sm < kSms; ++sm) {
        LatchedQueue<MemPacket>& port = memory.request_port(sm);
        if (sent < requests.size() && requests[sent].sm == sm && port.can_stage()) port.stage(requests[sent++]);
      }
      const MemoryEdge edges[] = {{MemoryClock::kIcnt, cycle}, {MemoryClock::kL2, cycle}, {MemoryClock::kDram, cycle}};
      for (uint32_t u = 0; u < memory.units(); ++u) memory.run_unit(u, edges, 3);
      for (uint32_t sm = 0; sm < kSms; ++sm) {
        LatchedQueue<MemPacket>& port = memory.reply_port(sm);
        port.receive();
        for (; !port.empty(); port.pop()) ++replied;
        port.publish_pops();
      }
    }
    ASSERT_EQ(replied, requests.size());
    ASSERT_TRUE(memory.idle());
  }

  MemorySpec spec;
  MemorySystem memory;
};

// Reads of distinct sectors (each one DRAM read), then writes, spread over the SMs, in slot 1.
std::vector<MemPacket> traffic() {
  std::vector<MemPacket> out;
  for (uint32_t i = 0; i < 300; ++i) {
    MemPacket p;
    p.addr = uint64_t(i) * 96;  // strides across sectors, lines, slices and channels
    p.sm = uint16_t(i % kSms);
    p.stat_slot = 1;
    p.type = i < 200 ? MemPacketType::kRead : MemPacketType::kWrite;
    p.byte_mask = i < 200 ? 0 : 0xffffffffu;
    p.addr += i < 200 ? 0 : 1 << 20;
    out.push_back(p);
  }
  return out;
}

TEST(MemoryInstanceStats, EachInstanceCountsItsOwnTrafficUnderItsName) {
  Driver d(small_spec());
  const std::vector<MemPacket> requests = traffic();
  d.run(requests);
  const MemoryInstanceStats inst = d.memory.take_instance_stats(1);

  ASSERT_EQ(inst.icnt.size(), 2u);
  EXPECT_EQ(inst.icnt[0].name, "icnt.request");
  EXPECT_EQ(inst.icnt[1].name, "icnt.reply");
  ASSERT_EQ(inst.l2.size(), 4u);
  ASSERT_EQ(inst.dram.size(), 2u);
  for (uint32_t s = 0; s < 4; ++s) EXPECT_EQ(inst.l2[s].name, "l2.slice" + std::to_string(s));
  for (uint32_t c = 0; c < 2; ++c) EXPECT_EQ(inst.dram[c].name, "dram.channel" + std::to_string(c));

  // Expected per slice and channel from the address map alone.
  std::vector<uint64_t> reads(4, 0), writes(4, 0);
  for (const MemPacket& p : requests) {
    const uint32_t s = d.memory.address_map().slice(p.addr);
    (p.type == MemPacketType::kRead ? reads : writes)[s]++;
  }
  for (uint32_t s = 0; s < 4; ++s) {
    SCOPED_TRACE(inst.l2[s].name);
    EXPECT_GT(reads[s], 0u);
    EXPECT_EQ(inst.l2[s].stats.read_sectors, reads[s]);
    EXPECT_EQ(inst.l2[s].stats.write_sectors, writes[s]);
    EXPECT_EQ(inst.l2[s].stats.fill_sectors, reads[s]);  // distinct sectors, cold L2: every read fills once
  }
  for (uint32_t c = 0; c < 2; ++c)
    EXPECT_EQ(inst.dram[c].stats.read_sectors, reads[2 * c] + reads[2 * c + 1]) << inst.dram[c].name;
  EXPECT_EQ(inst.icnt[0].stats.request_packets, requests.size());
  EXPECT_EQ(inst.icnt[0].stats.reply_packets, 0u);
  EXPECT_EQ(inst.icnt[1].stats.reply_packets, requests.size());
  EXPECT_EQ(inst.icnt[1].stats.request_packets, 0u);

  // Taken once: everything is reset, in every slot.
  EXPECT_EQ(d.memory.take_stats(1), MemoryStats{});
  EXPECT_EQ(d.memory.take_stats(0), MemoryStats{});
}

TEST(MemoryInstanceStats, TheInstancesSumToTheTotal) {
  // Two identical systems with identical traffic: one reports the total, the other per instance.
  Driver a(small_spec()), b(small_spec());
  a.run(traffic());
  b.run(traffic());
  const MemoryStats total = a.memory.take_stats(1);
  const MemoryInstanceStats inst = b.memory.take_instance_stats(1);
  ASSERT_GT(total.l2.read_sectors, 0u);
  EXPECT_EQ(inst.total(), total);
  // By hand, counter by counter through the visitors.
  std::vector<std::pair<std::string, uint64_t>> summed;
  total.for_each([&](const std::string& name, uint64_t) { summed.emplace_back(name, 0); });
  inst.for_each([&](const std::string&, const std::string& counter, uint64_t value) {
    for (auto& [name, sum] : summed)
      if (name == counter) sum += value;
  });
  size_t i = 0;
  total.for_each([&](const std::string& name, uint64_t value) {
    EXPECT_EQ(summed[i].first, name);
    EXPECT_EQ(summed[i++].second, value) << name;
  });
}

TEST(MemoryInstanceStats, TotalPrintsTheBlocksCountersInTheirOrder) {
  MemoryStats s;
  s.icnt.request_packets = 1;
  s.icnt.stall_cycles = 2;
  s.l2.read_sectors = 3;
  s.l2.fill_sectors = 4;
  s.dram.read_sectors = 5;
  s.dram.data_bus_cycles = 6;
  std::vector<std::pair<std::string, uint64_t>> seen;
  s.for_each([&](const std::string& name, uint64_t v) { seen.emplace_back(name, v); });
  ASSERT_EQ(seen.size(), 21u);
  EXPECT_EQ(seen[0], std::make_pair(std::string("lockstep__icnt_request_packets"), uint64_t(1)));
  EXPECT_EQ(seen[4], std::make_pair(std::string("lockstep__icnt_stall_cycles"), uint64_t(2)));
  EXPECT_EQ(seen[5], std::make_pair(std::string("lts__t_sectors_op_read.sum"), uint64_t(3)));
  EXPECT_EQ(seen[13], std::make_pair(std::string("lockstep__l2_fill_sectors"), uint64_t(4)));
  EXPECT_EQ(seen[14], std::make_pair(std::string("dram__sectors_read.sum"), uint64_t(5)));
  EXPECT_EQ(seen[20], std::make_pair(std::string("lockstep__dram_data_bus_cycles"), uint64_t(6)));
}

}  // namespace
}  // namespace lockstep
