#include "configs/spec/sm_spec.h"

#include <stdexcept>
#include <string>
#include <string_view>

#include "configs/spec/spec_check.h"

namespace lockstep {

std::vector<WarpSchedulerPolicy> warp_scheduler_policies() {
  return {WarpSchedulerPolicy::kLrr, WarpSchedulerPolicy::kGto, WarpSchedulerPolicy::kTwoLevel};
}

const char* warp_scheduler_name(WarpSchedulerPolicy policy) {
  switch (policy) {
    case WarpSchedulerPolicy::kLrr: return "lrr";
    case WarpSchedulerPolicy::kGto: return "gto";
    case WarpSchedulerPolicy::kTwoLevel: return "two_level";
  }
  return "?";
}
namespace {

using spec::at_least;
using spec::fail;
using spec::at_most;
using spec::kMaxLatency;
using spec::kMaxPerCycle;
using spec::kMaxQueue;
using spec::within;

// Every message names the config key first: "sm.subcores = 0: must be >= 1".
using spec::power_of_two;

std::string join(const std::vector<uint32_t>& values) {
  std::string out;
  for (uint32_t v : values) {
    if (!out.empty()) out += ",";
    out += std::to_string(v);
  }
  return out;
}

std::string unit_names(const std::vector<UnitSpec>& units) {
  std::string out;
  for (const UnitSpec& u : units) {
    if (!out.empty()) out += ",";
    out += u.name;
  }
  return out;
}

bool valid_unit_name(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  if (!((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z'))) return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

void SmSpec::validate() const {
  // Occupancy limits.
  at_least("sm.max_warps", max_warps, 1);
  at_most("sm.max_warps", max_warps, 1024);
  at_least("sm.max_threads", max_threads, 1);
  if (uint64_t(max_warps) * 32 < max_threads)
    fail("sm.max_threads", std::to_string(max_threads),
         "more than sm.max_warps * 32 = " + std::to_string(uint64_t(max_warps) * 32) + " threads");
  within("sm.max_blocks", max_blocks, 1, 1024);
  at_least("sm.reg_alloc_granularity", reg_alloc_granularity, 1);
  within("sm.registers", registers, reg_alloc_granularity, 1u << 20);
  if (registers % reg_alloc_granularity != 0)
    fail("sm.registers", std::to_string(registers),
         "not a multiple of sm.reg_alloc_granularity = " + std::to_string(reg_alloc_granularity));
  within("sm.max_regs_per_thread", max_regs_per_thread, 1, 1024);
  at_least("sm.max_regs_per_block", max_regs_per_block, 1);
  if (max_regs_per_block > registers)
    fail("sm.max_regs_per_block", std::to_string(max_regs_per_block),
         "more than sm.registers = " + std::to_string(registers));

  // Unified L1/shared storage and its carve-outs.
  within("sm.unified_l1_shared_kb", unified_l1_shared_kb, 1, 4096);
  if (max_shared_per_sm_kb > unified_l1_shared_kb)
    fail("sm.max_shared_per_sm_kb", std::to_string(max_shared_per_sm_kb),
         "more than sm.unified_l1_shared_kb = " + std::to_string(unified_l1_shared_kb));
  if (shared_carveouts_kb.empty()) fail("sm.shared_carveouts_kb", "", "needs at least one carve-out");
  for (size_t i = 0; i < shared_carveouts_kb.size(); ++i) {
    const uint32_t c = shared_carveouts_kb[i];
    if (c > unified_l1_shared_kb)
      fail("sm.shared_carveouts_kb", join(shared_carveouts_kb),
           "carve-out " + std::to_string(c) +
               " KB is above sm.unified_l1_shared_kb = " + std::to_string(unified_l1_shared_kb));
    if (c > max_shared_per_sm_kb)
      fail("sm.shared_carveouts_kb", join(shared_carveouts_kb),
           "carve-out " + std::to_string(c) +
               " KB is above sm.max_shared_per_sm_kb = " + std::to_string(max_shared_per_sm_kb));
    if (i > 0 && c <= shared_carveouts_kb[i - 1])
      fail("sm.shared_carveouts_kb", join(shared_carveouts_kb), "carve-outs must be strictly increasing");
  }
  if (shared_carveouts_kb.back() != max_shared_per_sm_kb)
    fail("sm.shared_carveouts_kb", join(shared_carveouts_kb),
         "the largest carve-out must equal sm.max_shared_per_sm_kb = " + std::to_string(max_shared_per_sm_kb));
  if (max_shared_per_block_kb > max_shared_per_sm_kb)
    fail("sm.max_shared_per_block_kb", std::to_string(max_shared_per_block_kb),
         "more than sm.max_shared_per_sm_kb = " + std::to_string(max_shared_per_sm_kb));
  power_of_two("sm.shared_alloc_granularity", shared_alloc_granularity);
  at_most("sm.shared_alloc_granularity", shared_alloc_granularity, 65536);

  // Sub-cores and scheduling.
  within("sm.subcores", subcores, 1, kMaxPerCycle);
  if (max_warps < subcores)
    fail("sm.max_warps", std::to_string(max_warps), "fewer warps than sm.subcores = " + std::to_string(subcores));
  if (scheduler == WarpSchedulerPolicy::kTwoLevel) {
    at_least("sm.two_level_active_warps", two_level_active_warps, 1);
    at_most("sm.two_level_active_warps", two_level_active_warps, warps_per_subcore());
  }
  at_least("sm.issue_width", issue_width, 1);
  at_most("sm.issue_width", issue_width, 8);

  // Front end.
  within("sm.fetch_per_cycle", fetch_per_cycle, 1, kMaxPerCycle);
  within("sm.ibuffer_entries", ibuffer_entries, 1, kMaxQueue);
  within("sm.icache_kb", icache_kb, 1, 4096);
  power_of_two("sm.icache_line_bytes", icache_line_bytes);
  within("sm.icache_line_bytes", icache_line_bytes, 16, 4096);
  within("sm.icache_ways", icache_ways, 1, 1024);
  {
    const uint64_t way_bytes = uint64_t(icache_line_bytes) * icache_ways;
    const uint64_t bytes = uint64_t(icache_kb) * 1024;
    if (bytes % way_bytes != 0 || (bytes / way_bytes & (bytes / way_bytes - 1)) != 0)
      fail("sm.icache_kb", std::to_string(icache_kb),
           "not a power-of-two number of sets of sm.icache_ways x sm.icache_line_bytes");
  }
  within("sm.icache_miss_latency", icache_miss_latency, 1, kMaxLatency);

  // Operand collector.
  within("sm.reg_banks", reg_banks, 1, kMaxPerCycle);
  within("sm.collector_units", collector_units, 1, kMaxPerCycle);

  // LD/ST path.
  within("sm.shared_banks", shared_banks, 1, kMaxPerCycle);
  power_of_two("sm.shared_bank_bytes", shared_bank_bytes);
  at_most("sm.shared_bank_bytes", shared_bank_bytes, 128);
  within("sm.shared_latency", shared_latency, 1, kMaxLatency);
  within("sm.ldst_issue_per_cycle", ldst_issue_per_cycle, 1, kMaxPerCycle);
  at_least("sm.ldst_queue_entries", ldst_queue_entries, 1);
  at_most("sm.ldst_queue_entries", ldst_queue_entries, 64);
  if (coalesce_threads == 0 || coalesce_threads > 32 || 32 % coalesce_threads != 0)
    fail("sm.coalesce_threads", std::to_string(coalesce_threads), "must divide the warp size 32");
  within("sm.perfect_memory_latency", perfect_memory_latency, 1, kMaxLatency);
  within("sm.branch_latency", branch_latency, 1, kMaxLatency);

  // Unit classes.
  if (units.empty()) fail("sm.units", "", "declare at least one unit class");
  if (units.size() > 30) fail("sm.units", unit_names(units), "at most 30 unit classes");
  for (size_t i = 0; i < units.size(); ++i) {
    const UnitSpec& u = units[i];
    if (!valid_unit_name(u.name))
      fail("sm.units", unit_names(units),
           "'" + u.name + "' is not a unit name (a letter, then letters, digits or _, at most 32)");
    if (spec::iequals(u.name, "MEM")) fail("sm.units", unit_names(units), "MEM names the LD/ST path, which every SM has");
    for (size_t j = 0; j < i; ++j)
      if (spec::iequals(units[j].name, u.name))
        fail("sm.units", unit_names(units), "unit class '" + u.name + "' declared twice");
    const std::string key = "unit." + u.name + ".";
    at_most(key + "per_subcore", u.per_subcore, 64);
    within(key + "latency", u.latency, 1, kMaxLatency);
    within(key + "initiation", u.initiation, 1, kMaxLatency);
  }
}

}  // namespace lockstep
