// The registration of every GPU config key, section by section, in the order
// a dump prints them. A key here is the only way a config reaches a spec field.
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel/config/config_schema.h"
#include "memsys/policy_registry.h"

namespace lockstep::config {
namespace {

const char* scheduler_name(WarpSchedulerPolicy policy) {
  switch (policy) {
    case WarpSchedulerPolicy::kLrr:
      return "lrr";
    case WarpSchedulerPolicy::kGto:
      return "gto";
    case WarpSchedulerPolicy::kTwoLevel:
      return "two_level";
  }
  return "?";
}

// Accessors of one block's fields.
template <class T>
auto sm(T SmSpec::*field) {
  return member(&GpuSpec::sm, field);
}
template <class T>
auto l1d(T L1dSpec::*field) {
  return member(&GpuSpec::memory, &MemorySpec::l1d, field);
}
template <class T>
auto l2(T L2Spec::*field) {
  return member(&GpuSpec::memory, &MemorySpec::l2, field);
}
template <class T>
auto icnt(T IcntSpec::*field) {
  return member(&GpuSpec::memory, &MemorySpec::icnt, field);
}
template <class T>
auto dram(T DramSpec::*field) {
  return member(&GpuSpec::memory, &MemorySpec::dram, field);
}

template <class Gpu>
auto& unit_of(Gpu& gpu, const std::string& name) {
  for (auto& unit : gpu.sm.units)
    if (unit.name == name) return unit;
  throw std::invalid_argument("unit class '" + name + "' is not declared in sm.units");
}

void gpu_keys(ConfigSchema& s) {
  s.field("gpu.name", member(&GpuSpec::name), "short name of the GPU; --gpu NAME finds configs/gpus/NAME.cfg");
  s.field("gpu.description", member(&GpuSpec::description), "one line shown by lockstep config --list");
  s.field("gpu.sms", member(&GpuSpec::sms), "streaming multiprocessors");
  s.field("gpu.sms_per_cluster", member(&GpuSpec::sms_per_cluster),
          "SMs that share one interconnect port (a SIMT cluster); must divide gpu.sms");
  s.field("gpu.kernel_launch_latency", member(&GpuSpec::kernel_launch_latency),
          "idle core cycles between the moment a kernel could start and its first thread block");
  s.field("gpu.concurrent_kernels", member(&GpuSpec::concurrent_kernels),
          "kernels on different CUDA streams may overlap (an SM still holds one kernel at a time)");
  s.field("gpu.watchdog_cycles", member(&GpuSpec::watchdog_cycles),
          "core cycles without progress before the run stops with a deadlock report (0: never)");
}

void clock_keys(ConfigSchema& s) {
  s.field("clock.core_mhz", member(&GpuSpec::clocks, &ClockSpec::core_mhz), "SM clock", "MHz");
  s.field("clock.icnt_mhz", member(&GpuSpec::clocks, &ClockSpec::icnt_mhz), "interconnect clock", "MHz");
  s.field("clock.l2_mhz", member(&GpuSpec::clocks, &ClockSpec::l2_mhz), "L2 and memory partition clock", "MHz");
  s.field("clock.dram_mhz", member(&GpuSpec::clocks, &ClockSpec::dram_mhz),
          "DRAM command clock; data moves at dram.data_rate beats per cycle of it", "MHz");
}

void sm_keys(ConfigSchema& s) {
  s.field("sm.max_threads", sm(&SmSpec::max_threads), "resident threads per SM");
  s.field("sm.max_warps", sm(&SmSpec::max_warps), "resident warps per SM (x 32 >= sm.max_threads)");
  s.field("sm.max_blocks", sm(&SmSpec::max_blocks), "resident thread blocks per SM");
  s.field("sm.registers", sm(&SmSpec::registers), "32-bit registers per SM");
  s.field("sm.reg_alloc_granularity", sm(&SmSpec::reg_alloc_granularity),
          "registers are allocated per warp in multiples of this");
  s.field("sm.max_regs_per_thread", sm(&SmSpec::max_regs_per_thread), "registers a thread may use");
  s.field("sm.max_regs_per_block", sm(&SmSpec::max_regs_per_block), "registers one thread block may use");
  s.field("sm.unified_l1_shared_kb", sm(&SmSpec::unified_l1_shared_kb),
          "KB of on-chip storage split between L1D and shared memory");
  s.field("sm.max_shared_per_sm_kb", sm(&SmSpec::max_shared_per_sm_kb), "largest shared-memory carve-out, KB");
  s.field("sm.shared_carveouts_kb", sm(&SmSpec::shared_carveouts_kb),
          "shared-memory sizes (KB, increasing) the driver picks from per kernel; L1D gets the rest");
  s.field("sm.max_shared_per_block_kb", sm(&SmSpec::max_shared_per_block_kb),
          "shared memory one thread block may use, KB");
  s.field("sm.shared_alloc_granularity", sm(&SmSpec::shared_alloc_granularity),
          "shared memory is allocated per block in multiples of this many bytes");
  s.field("sm.subcores", sm(&SmSpec::subcores),
          "sub-cores (processing blocks): a warp scheduler, a register file slice and units each");
  s.enumeration("sm.scheduler", sm(&SmSpec::scheduler), "warp scheduling policy of each sub-core",
                std::vector{WarpSchedulerPolicy::kLrr, WarpSchedulerPolicy::kGto, WarpSchedulerPolicy::kTwoLevel},
                scheduler_name);
  s.field("sm.two_level_active_warps", sm(&SmSpec::two_level_active_warps),
          "warps in the active set of each scheduler under the two_level policy");
  s.field("sm.issue_width", sm(&SmSpec::issue_width),
          "instructions one scheduler issues per cycle (2: dual issue to different units)");
  s.field("sm.fetch_per_cycle", sm(&SmSpec::fetch_per_cycle),
          "warps whose instructions are fetched per sub-core per cycle");
  s.field("sm.ibuffer_entries", sm(&SmSpec::ibuffer_entries), "decoded instructions buffered per warp");
  s.field("sm.icache_kb", sm(&SmSpec::icache_kb), "L1 instruction cache, KB");
  s.field("sm.icache_line_bytes", sm(&SmSpec::icache_line_bytes), "L1 instruction cache line");
  s.field("sm.icache_ways", sm(&SmSpec::icache_ways), "L1 instruction cache ways");
  s.field("sm.icache_miss_latency", sm(&SmSpec::icache_miss_latency),
          "core cycles to refill an instruction cache line");
  s.field("sm.reg_banks", sm(&SmSpec::reg_banks), "register file banks per sub-core; one read per bank per cycle");
  s.field("sm.collector_units", sm(&SmSpec::collector_units), "operand collector units per sub-core");
  s.field("sm.shared_banks", sm(&SmSpec::shared_banks), "shared memory banks");
  s.field("sm.shared_bank_bytes", sm(&SmSpec::shared_bank_bytes), "width of a shared memory bank");
  s.field("sm.shared_latency", sm(&SmSpec::shared_latency),
          "core cycles of a shared memory access without bank conflicts");
  s.field("sm.ldst_issue_per_cycle", sm(&SmSpec::ldst_issue_per_cycle),
          "memory instructions the LD/ST unit accepts per SM per cycle");
  s.field("sm.ldst_queue_entries", sm(&SmSpec::ldst_queue_entries),
          "global/local memory instructions the LD/ST unit queues for the L1 lookups (1: one at a time)");
  s.field("sm.coalesce_threads", sm(&SmSpec::coalesce_threads),
          "threads per coalescing group; each group's accesses merge into sectors");
  s.field("sm.perfect_memory_latency", sm(&SmSpec::perfect_memory_latency),
          "core cycles of a constant-cache access, and of every global/local access under --perfect-memory");
  s.field("sm.branch_latency", sm(&SmSpec::branch_latency),
          "core cycles of a branch when no BRANCH unit class is declared");
  s.field("sm.gating", sm(&SmSpec::gating),
          "skip re-evaluating issue and fetch in cycles that provably repeat the last one (same results either way)");

  ConfigKey units;
  units.name = "sm.units";
  units.type = "name list";
  units.description = "unit classes of each sub-core, in order; each gets a [unit.NAME] section";
  units.set = [](GpuSpec& g, std::string_view text) {
    std::vector<UnitSpec> next;
    for (const std::string& name : parse_name_list(text)) {
      UnitSpec unit{name};
      for (const UnitSpec& old : g.sm.units)
        if (old.name == name) unit = old;
      next.push_back(unit);
    }
    g.sm.units = std::move(next);
  };
  units.get = [](const GpuSpec& g) {
    std::string out;
    for (const UnitSpec& u : g.sm.units) {
      if (!out.empty()) out += ",";
      out += u.name;
    }
    return out;
  };
  s.add(std::move(units));
}

void unit_keys(ConfigSchema& s, const std::string& name) {
  const std::string p = "unit." + name + ".";
  s.field(
      p + "per_subcore", [name](auto& g) -> auto& { return unit_of(g, name).per_subcore; },
      "pipelines of this class in each sub-core (0: absent)");
  s.field(
      p + "latency", [name](auto& g) -> auto& { return unit_of(g, name).latency; },
      "core cycles from issue to result writeback");
  s.field(
      p + "initiation", [name](auto& g) -> auto& { return unit_of(g, name).initiation; },
      "core cycles before the same pipeline accepts another instruction");
}

void l1d_keys(ConfigSchema& s) {
  s.field("l1d.line_bytes", l1d(&L1dSpec::line_bytes), "L1D line (tag granularity)");
  s.field("l1d.sector_bytes", l1d(&L1dSpec::sector_bytes), "L1D sector (fill and hit granularity)");
  s.field("l1d.sets", l1d(&L1dSpec::sets), "L1D sets; fixed, ways scale when adaptive");
  s.field("l1d.ways", l1d(&L1dSpec::ways),
          "L1D ways at the base size (sets x ways x line), the whole size when not adaptive");
  s.field("l1d.adaptive", l1d(&L1dSpec::adaptive),
          "L1D takes all unified storage the kernel's shared carve-out leaves free");
  s.field("l1d.cache_global", l1d(&L1dSpec::cache_global),
          "global loads allocate in L1D (false: only read-only / non-coherent loads do)");
  s.field("l1d.streaming", l1d(&L1dSpec::streaming),
          "allocate lines on fill rather than on miss, so misses never wait for a free line");
  s.field("l1d.banks", l1d(&L1dSpec::banks), "L1D data banks");
  s.field("l1d.bank_bytes", l1d(&L1dSpec::bank_bytes), "L1D bank interleave");
  s.field("l1d.hit_latency", l1d(&L1dSpec::hit_latency), "core cycles of an L1D hit");
  s.field("l1d.mshr_entries", l1d(&L1dSpec::mshr_entries), "outstanding missed sectors per L1D");
  s.field("l1d.mshr_max_merge", l1d(&L1dSpec::mshr_max_merge), "requests merged into one outstanding L1D sector");
  s.field("l1d.miss_queue", l1d(&L1dSpec::miss_queue), "L1D misses waiting to enter the interconnect");
}

void l2_keys(ConfigSchema& s) {
  s.field("l2.subpartitions", l2(&L2Spec::subpartitions),
          "L2 slices per DRAM channel; slices = dram.channels x l2.subpartitions");
  s.field("l2.sets", l2(&L2Spec::sets), "sets per L2 slice");
  s.field("l2.ways", l2(&L2Spec::ways), "ways per L2 slice");
  s.field("l2.line_bytes", l2(&L2Spec::line_bytes), "L2 line (tag granularity)");
  s.field("l2.sector_bytes", l2(&L2Spec::sector_bytes), "L2 sector (fill and hit granularity)");
  s.field("l2.latency", l2(&L2Spec::latency), "L2 cycles from slice input to data out on an L2 hit");
  s.field("l2.mshr_entries", l2(&L2Spec::mshr_entries), "outstanding missed sectors per slice");
  s.field("l2.mshr_max_merge", l2(&L2Spec::mshr_max_merge), "requests merged into one outstanding L2 sector");
  s.field("l2.miss_queue", l2(&L2Spec::miss_queue), "slice misses waiting for the DRAM channel");
  const std::vector hashes = policy_ids<IndexHash>();
  s.enumeration("l2.set_hash", l2(&L2Spec::set_hash), "how the set index inside a slice is formed from the address",
                hashes, index_hash_name);
  s.enumeration("l2.partition_hash", l2(&L2Spec::partition_hash), "how the memory channel is chosen from the address",
                hashes, index_hash_name);
  s.field("l2.channel_interleave_bytes", l2(&L2Spec::channel_interleave_bytes),
          "consecutive bytes mapped to one memory channel");
  s.field("l2.icnt_to_l2_queue", l2(&L2Spec::icnt_to_l2_queue), "requests from the interconnect waiting for a slice");
  s.field("l2.l2_to_dram_queue", l2(&L2Spec::l2_to_dram_queue), "slice misses waiting for the DRAM scheduler");
  s.field("l2.dram_to_l2_queue", l2(&L2Spec::dram_to_l2_queue), "DRAM replies waiting to fill a slice");
  s.field("l2.l2_to_icnt_queue", l2(&L2Spec::l2_to_icnt_queue), "replies waiting for the interconnect");
  s.field("l2.atomic_latency", l2(&L2Spec::atomic_latency),
          "L2 cycles the atomic unit takes once the sector is readable");
}

void icnt_keys(ConfigSchema& s) {
  s.field("icnt.flit_bytes", icnt(&IcntSpec::flit_bytes), "bytes a crossbar port moves per interconnect cycle");
  s.field("icnt.latency", icnt(&IcntSpec::latency),
          "interconnect cycles from injection to ejection without contention");
  s.field("icnt.in_buffer", icnt(&IcntSpec::in_buffer), "flits buffered per input port");
  s.field("icnt.out_buffer", icnt(&IcntSpec::out_buffer), "flits buffered per output port");
  s.field("icnt.sm_ejection_buffer", icnt(&IcntSpec::sm_ejection_buffer),
          "packets a cluster accepts from the network before back-pressure");
  s.field("icnt.ldst_response_buffer", icnt(&IcntSpec::ldst_response_buffer),
          "replies the LD/ST unit holds before it stops ejecting");
}

void dram_keys(ConfigSchema& s) {
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

void isa_keys(ConfigSchema& s) {
  ConfigKey extra;
  extra.name = "isa.extra";
  extra.type = "OPC:UNIT[:KIND] list";
  extra.description = "opcode-to-unit lines added to the ISA def (repeatable; an empty value clears)";
  extra.repeatable = true;
  extra.set = [](GpuSpec& g, std::string_view text) {
    const std::vector<std::string> items = split_list(text);
    if (items.empty()) g.isa_extra.clear();
    for (const std::string& item : items) g.isa_extra.push_back(item);
  };
  extra.get = [](const GpuSpec& g) {
    std::string out;
    for (const std::string& line : g.isa_extra) {
      if (!out.empty()) out += ",";
      out += line;
    }
    return out;
  };
  s.add(std::move(extra));
}

}  // namespace

void register_gpu_keys(ConfigSchema& schema, const std::vector<std::string>& unit_names) {
  gpu_keys(schema);
  clock_keys(schema);
  sm_keys(schema);
  for (const std::string& name : unit_names) unit_keys(schema, name);
  l1d_keys(schema);
  l2_keys(schema);
  icnt_keys(schema);
  dram_keys(schema);
  isa_keys(schema);
}

}  // namespace lockstep::config
