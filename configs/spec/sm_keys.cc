// The keys of [sm] and [unit.NAME] (SmSpec, UnitSpec in sm_spec.h): each
// key's name, description and field, in the order a dump prints them. The one
// place these keys are described.
#include "configs/spec/spec_keys.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "configs/spec/config_schema.h"

namespace lockstep::config {
namespace {

template <class T>
auto sm(T SmSpec::*field) {
  return member(&GpuSpec::sm, field);
}

template <class Gpu>
auto& unit_of(Gpu& gpu, const std::string& name) {
  for (auto& unit : gpu.sm.units)
    if (unit.name == name) return unit;
  throw std::invalid_argument("unit class '" + name + "' is not declared in sm.units");
}

}  // namespace

void register_sm_keys(ConfigSchema& s) {
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
                warp_scheduler_policies(), warp_scheduler_name);
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

void register_unit_keys(ConfigSchema& s, const std::string& name) {
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

}  // namespace lockstep::config
