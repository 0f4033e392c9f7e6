// The keys of [dram] (DramSpec in memory_spec.h): each key's name,
// description and field, in the order a dump prints them. The one place these
// keys are described.
#include "configs/spec/spec_keys.h"

#include <cstdint>
#include <string>
#include <vector>

#include "configs/spec/config_schema.h"
#include "configs/spec/policy_registry.h"

namespace lockstep::config {
namespace {

template <class T>
auto dram(T DramSpec::*field) {
  return member(&GpuSpec::memory, &MemorySpec::dram, field);
}

}  // namespace

void register_dram_keys(ConfigSchema& s) {
  s.enumeration("dram.type", dram(&DramSpec::type), "DRAM device class",
                std::vector{DramType::kGddr5, DramType::kGddr5x, DramType::kGddr6, DramType::kHbm2, DramType::kHbm3},
                dram_type_name);
  s.field("dram.channels", dram(&DramSpec::channels), "independent DRAM channels, one memory partition each");
  s.field("dram.bus_width_bits", dram(&DramSpec::bus_width_bits), "data bus per channel");
  s.field("dram.burst_length", dram(&DramSpec::burst_length), "data beats per column command");
  s.field("dram.data_rate", dram(&DramSpec::data_rate), "data beats per command clock (2: DDR, 4: QDR)");
  s.field("dram.banks", dram(&DramSpec::banks), "banks per channel");
  s.field("dram.bank_groups", dram(&DramSpec::bank_groups), "bank groups per channel (1: none)");
  struct Timing {
    const char* name;
    uint32_t DramSpec::*field;
    const char* description;
  };
  static const Timing kTimings[] = {
      {"tCCD", &DramSpec::tCCD, "DRAM cycles, column to column in different bank groups"},
      {"tCCDL", &DramSpec::tCCDL, "DRAM cycles, column to column in the same bank group"},
      {"tRRD", &DramSpec::tRRD, "DRAM cycles, activate to activate in different banks"},
      {"tRCD", &DramSpec::tRCD, "DRAM cycles, activate to read"},
      {"tRCDWR", &DramSpec::tRCDWR, "DRAM cycles, activate to write"},
      {"tRAS", &DramSpec::tRAS, "DRAM cycles, activate to precharge"},
      {"tRP", &DramSpec::tRP, "DRAM cycles, precharge to activate"},
      {"tRC", &DramSpec::tRC, "DRAM cycles, activate to activate in the same bank"},
      {"tCL", &DramSpec::tCL, "DRAM cycles, read command to first data (CAS latency)"},
      {"tWL", &DramSpec::tWL, "DRAM cycles, write command to first data"},
      {"tWR", &DramSpec::tWR, "DRAM cycles, end of write data to precharge"},
      {"tWTR", &DramSpec::tWTR, "DRAM cycles, end of write data to read command"},
      {"tRTW", &DramSpec::tRTW, "DRAM cycles, read to write turnaround"},
      {"tRTPL", &DramSpec::tRTPL, "DRAM cycles, read to precharge"},
      {"tREFI", &DramSpec::tREFI, "DRAM cycles between refreshes (0: refresh not modelled)"},
      {"tRFC", &DramSpec::tRFC, "DRAM cycles a refresh blocks the channel (one bank with dram.per_bank_refresh)"},
  };
  for (const Timing& t : kTimings) {
    s.field(std::string("dram.") + t.name, dram(t.field), t.description);
  }
  s.field("dram.per_bank_refresh", dram(&DramSpec::per_bank_refresh),
          "refresh one bank at a time in rotation, every dram.tREFI / dram.banks (HBM); else all banks at once");
  s.enumeration("dram.scheduler", dram(&DramSpec::scheduler),
                "DRAM command scheduler (fr_fcfs: row hits first, then oldest)",
                policy_ids<DramScheduler>(), dram_scheduler_name);
  s.field("dram.sched_queue", dram(&DramSpec::sched_queue), "requests the scheduler considers per channel");
  s.field("dram.write_queue", dram(&DramSpec::write_queue),
          "separate write queue per channel (0: writes share dram.sched_queue)");
  s.field("dram.write_high_watermark", dram(&DramSpec::write_high_watermark),
          "queued writes that start a write drain (with dram.write_queue > 0)");
  s.field("dram.write_low_watermark", dram(&DramSpec::write_low_watermark),
          "queued writes at which a write drain stops while reads wait");
  s.field("dram.return_queue", dram(&DramSpec::return_queue), "replies buffered per channel");
  s.field("dram.dual_command_bus", dram(&DramSpec::dual_command_bus),
          "row and column commands can issue in the same cycle (HBM)");
  s.enumeration("dram.page_policy", dram(&DramSpec::page_policy),
                "keep a row open after an access, or precharge at once",
                policy_ids<PagePolicy>(), page_policy_name);
  s.enumeration("dram.bank_hash", dram(&DramSpec::bank_hash),
                "how the bank index inside a channel is formed from the address",
                policy_ids<IndexHash>(), index_hash_name);
  s.field("dram.extra_latency", dram(&DramSpec::extra_latency),
          "fixed core cycles added to every DRAM access (PHY, pads, return path)");
}

}  // namespace lockstep::config
