#include "configs/spec/memory_spec.h"

#include <stdexcept>
#include <string>
#include <string_view>

#include "configs/spec/packet_bytes.h"
#include "configs/spec/policy_registry.h"
#include "configs/spec/spec_check.h"

namespace lockstep {
namespace {

using spec::at_least;
using spec::fail;
using spec::at_most;
using spec::kMaxLatency;
using spec::kMaxPerCycle;
using spec::kMaxQueue;
using spec::within;

using spec::power_of_two;

// Line and sector sizes of a sectored cache: sectors tile the line, at most 32 of them.
void line_and_sector(const std::string& prefix, uint32_t line, uint32_t sector) {
  power_of_two(prefix + "sector_bytes", sector);
  at_least(prefix + "sector_bytes", sector, 4);
  at_most(prefix + "sector_bytes", sector, 32);  // a sector's bytes are one bit each of a 32-bit mask
  power_of_two(prefix + "line_bytes", line);
  at_most(prefix + "line_bytes", line, 4096);
  if (line < sector)
    fail(prefix + "line_bytes", line, "smaller than " + prefix + "sector_bytes = " + std::to_string(sector));
  if (line / sector > 32) fail(prefix + "line_bytes", line, "more than 32 sectors per line");
}

}  // namespace

const char* index_hash_name(IndexHash hash) { return policy_name(hash); }

const char* dram_type_name(DramType type) {
  switch (type) {
    case DramType::kGddr5:
      return "gddr5";
    case DramType::kGddr5x:
      return "gddr5x";
    case DramType::kGddr6:
      return "gddr6";
    case DramType::kHbm2:
      return "hbm2";
    case DramType::kHbm3:
      return "hbm3";
  }
  return "?";
}

const char* dram_scheduler_name(DramScheduler scheduler) { return policy_name(scheduler); }

const char* page_policy_name(PagePolicy policy) { return policy_name(policy); }

void MemorySpec::validate() const {
  // L1D.
  line_and_sector("l1d.", l1d.line_bytes, l1d.sector_bytes);
  power_of_two("l1d.sets", l1d.sets);
  at_most("l1d.sets", l1d.sets, 65536);
  within("l1d.ways", l1d.ways, 1, 65536);
  within("l1d.banks", l1d.banks, 1, kMaxPerCycle);
  power_of_two("l1d.bank_bytes", l1d.bank_bytes);
  at_most("l1d.bank_bytes", l1d.bank_bytes, 4096);
  within("l1d.hit_latency", l1d.hit_latency, 1, kMaxLatency);
  within("l1d.mshr_entries", l1d.mshr_entries, 1, kMaxQueue);
  within("l1d.mshr_max_merge", l1d.mshr_max_merge, 1, kMaxQueue);
  within("l1d.miss_queue", l1d.miss_queue, 1, kMaxQueue);

  // L2.
  at_least("l2.subpartitions", l2.subpartitions, 1);
  at_most("l2.subpartitions", l2.subpartitions, 16);
  power_of_two("l2.sets", l2.sets);
  at_most("l2.sets", l2.sets, 65536);
  within("l2.ways", l2.ways, 1, 1024);
  line_and_sector("l2.", l2.line_bytes, l2.sector_bytes);
  within("l2.latency", l2.latency, 1, kMaxLatency);
  within("l2.mshr_entries", l2.mshr_entries, 1, kMaxQueue);
  within("l2.mshr_max_merge", l2.mshr_max_merge, 1, kMaxQueue);
  within("l2.miss_queue", l2.miss_queue, 1, kMaxQueue);
  power_of_two("l2.channel_interleave_bytes", l2.channel_interleave_bytes);
  at_most("l2.channel_interleave_bytes", l2.channel_interleave_bytes, 1u << 20);
  if (l2.channel_interleave_bytes < l2.line_bytes)
    fail("l2.channel_interleave_bytes", l2.channel_interleave_bytes,
         "smaller than l2.line_bytes = " + std::to_string(l2.line_bytes));
  within("l2.icnt_to_l2_queue", l2.icnt_to_l2_queue, 1, kMaxQueue);
  within("l2.l2_to_dram_queue", l2.l2_to_dram_queue, 1, kMaxQueue);
  within("l2.dram_to_l2_queue", l2.dram_to_l2_queue, 1, kMaxQueue);
  within("l2.l2_to_icnt_queue", l2.l2_to_icnt_queue, 1, kMaxQueue);
  within("l2.atomic_latency", l2.atomic_latency, 1, kMaxLatency);

  at_most("dram.extra_latency", dram.extra_latency, kMaxLatency);

  // Interconnect.
  within("icnt.flit_bytes", icnt.flit_bytes, 1, 4096);
  within("icnt.latency", icnt.latency, 1, kMaxLatency);
  // A crossbar port buffers whole packets; the largest is a header plus a sector.
  const uint32_t packet_flits = (kPacketHeaderBytes + kPacketSectorBytes + icnt.flit_bytes - 1) / icnt.flit_bytes;
  within("icnt.in_buffer", icnt.in_buffer, packet_flits, kMaxQueue);
  within("icnt.out_buffer", icnt.out_buffer, packet_flits, kMaxQueue);
  within("icnt.sm_ejection_buffer", icnt.sm_ejection_buffer, 1, kMaxQueue);
  within("icnt.ldst_response_buffer", icnt.ldst_response_buffer, 1, kMaxQueue);

  // DRAM geometry.
  at_least("dram.channels", dram.channels, 1);
  at_most("dram.channels", dram.channels, 4096);
  within("dram.bus_width_bits", dram.bus_width_bits, 8, 4096);
  if (dram.bus_width_bits % 8 != 0) fail("dram.bus_width_bits", dram.bus_width_bits, "must be a multiple of 8");
  within("dram.burst_length", dram.burst_length, 1, 64);
  within("dram.data_rate", dram.data_rate, 1, 16);
  if (dram.burst_length % dram.data_rate != 0)
    fail("dram.burst_length", dram.burst_length,
         "not a whole number of command cycles at dram.data_rate = " + std::to_string(dram.data_rate));
  power_of_two("dram.banks", dram.banks);
  at_most("dram.banks", dram.banks, 1024);
  at_least("dram.bank_groups", dram.bank_groups, 1);
  if (dram.bank_groups > dram.banks || dram.banks % dram.bank_groups != 0)
    fail("dram.bank_groups", dram.bank_groups, "must divide dram.banks = " + std::to_string(dram.banks));
  if (l2.sector_bytes % dram.access_bytes() != 0)
    fail("dram.burst_length", dram.burst_length,
         "one column command moves dram.bus_width_bits / 8 x dram.burst_length = " +
             std::to_string(dram.access_bytes()) +
             " B, which does not divide l2.sector_bytes = " + std::to_string(l2.sector_bytes));

  // DRAM timings.
  within("dram.tCCD", dram.tCCD, 1, kMaxLatency);
  at_most("dram.tCCDL", dram.tCCDL, kMaxLatency);
  if (dram.tCCDL < dram.tCCD) fail("dram.tCCDL", dram.tCCDL, "less than dram.tCCD = " + std::to_string(dram.tCCD));
  within("dram.tRRD", dram.tRRD, 1, kMaxLatency);
  within("dram.tRCD", dram.tRCD, 1, kMaxLatency);
  within("dram.tRCDWR", dram.tRCDWR, 1, kMaxLatency);
  at_most("dram.tRAS", dram.tRAS, kMaxLatency);
  if (dram.tRAS < dram.tRCD) fail("dram.tRAS", dram.tRAS, "less than dram.tRCD = " + std::to_string(dram.tRCD));
  within("dram.tRP", dram.tRP, 1, kMaxLatency);
  at_most("dram.tRC", dram.tRC, kMaxLatency);
  if (dram.tRC < dram.tRAS) fail("dram.tRC", dram.tRC, "less than dram.tRAS = " + std::to_string(dram.tRAS));
  within("dram.tCL", dram.tCL, 1, kMaxLatency);
  within("dram.tWL", dram.tWL, 1, kMaxLatency);
  within("dram.tWR", dram.tWR, 1, kMaxLatency);
  within("dram.tWTR", dram.tWTR, 1, kMaxLatency);
  within("dram.tRTW", dram.tRTW, 1, kMaxLatency);
  within("dram.tRTPL", dram.tRTPL, 1, kMaxLatency);
  at_most("dram.tREFI", dram.tREFI, kMaxLatency);
  at_most("dram.tRFC", dram.tRFC, kMaxLatency);
  if (dram.tREFI != 0) {
    at_least("dram.tRFC", dram.tRFC, 1);
    if (dram.tREFI <= dram.tRFC)
      fail("dram.tREFI", dram.tREFI, "not more than dram.tRFC = " + std::to_string(dram.tRFC));
  }

  if (dram.per_bank_refresh && dram.tREFI != 0 && dram.tREFI < dram.banks)
    fail("dram.tREFI", dram.tREFI,
         "per-bank refresh issues one refresh every dram.tREFI / dram.banks cycles; less than dram.banks = " +
             std::to_string(dram.banks));

  // DRAM scheduling.
  within("dram.sched_queue", dram.sched_queue, 1, kMaxQueue);
  at_most("dram.write_queue", dram.write_queue, kMaxQueue);
  if (dram.write_queue != 0) {
    if (dram.write_high_watermark > dram.write_queue)
      fail("dram.write_high_watermark", dram.write_high_watermark,
           "more than dram.write_queue = " + std::to_string(dram.write_queue));
    if (dram.write_low_watermark >= dram.write_high_watermark)
      fail("dram.write_low_watermark", dram.write_low_watermark,
           "not less than dram.write_high_watermark = " + std::to_string(dram.write_high_watermark));
  }
  // The L2's tags: at most 4M lines in all (512 MB of 128-byte lines, ten
  // times the largest L2 shipped).
  if (uint64_t(l2_slices()) * l2.sets * l2.ways > (1u << 22))
    fail("l2.sets", l2.sets,
         "dram.channels x l2.subpartitions x l2.sets x l2.ways = " +
             std::to_string(uint64_t(l2_slices()) * l2.sets * l2.ways) + " L2 lines, more than 4194304");
  within("dram.return_queue", dram.return_queue, 1, kMaxQueue);
}

}  // namespace lockstep
