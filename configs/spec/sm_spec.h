#pragma once
// The immutable description of one SM, filled from a GPU config file
// (configs/gpus/*.cfg, section [sm] and [unit.NAME]) and validated before use.
// Each field is a config key; its description is in sm_keys.cc, the one place
// keys are described. Mutable state lives in the SM's blocks, never here.
#include <cstdint>
#include <string>
#include <vector>

namespace lockstep {

// One class of execution unit in each sub-core (SP, INT, DP, SFU, TENSOR, ...).
// New classes are declared in a config alone; the ISA def maps opcodes to them.
// Keys unit.NAME.*: sm_keys.cc.
struct UnitSpec {
  std::string name;
  uint32_t per_subcore = 1;
  uint32_t latency = 4;
  uint32_t initiation = 1;
};

enum class WarpSchedulerPolicy { kLrr, kGto, kTwoLevel };
// The policies in the order the key's documentation lists them, and their
// spellings in sm.scheduler (core/sm/warp_scheduler_registry.cc builds each).
std::vector<WarpSchedulerPolicy> warp_scheduler_policies();
const char* warp_scheduler_name(WarpSchedulerPolicy policy);  // "?" for a value not listed

// Keys sm.*: sm_keys.cc.
struct SmSpec {
  // Occupancy limits (per SM).
  uint32_t max_threads = 2048;
  uint32_t max_warps = 64;
  uint32_t max_blocks = 32;
  uint32_t registers = 65536;
  uint32_t reg_alloc_granularity = 256;
  uint32_t max_regs_per_thread = 255;
  uint32_t max_regs_per_block = 65536;
  // On-chip storage shared by L1D and shared memory; the carve-out is chosen per kernel.
  uint32_t unified_l1_shared_kb = 128;
  uint32_t max_shared_per_sm_kb = 96;
  std::vector<uint32_t> shared_carveouts_kb = {0, 8, 16, 32, 64, 96};
  uint32_t max_shared_per_block_kb = 96;
  uint32_t shared_alloc_granularity = 256;

  // Sub-cores: each has a warp scheduler, a register file slice and its units.
  uint32_t subcores = 4;
  WarpSchedulerPolicy scheduler = WarpSchedulerPolicy::kLrr;
  uint32_t two_level_active_warps = 4;
  uint32_t issue_width = 1;

  // Front end (the instruction cache misses to below L1I).
  uint32_t fetch_per_cycle = 1;
  uint32_t ibuffer_entries = 2;
  uint32_t icache_kb = 128;
  uint32_t icache_line_bytes = 128;
  uint32_t icache_ways = 16;
  uint32_t icache_miss_latency = 20;

  // Operand collector and register file.
  uint32_t reg_banks = 2;
  uint32_t collector_units = 2;

  // LD/ST path (ldst_queue_entries: the MIO queue).
  uint32_t shared_banks = 32;
  uint32_t shared_bank_bytes = 4;
  uint32_t shared_latency = 20;
  uint32_t ldst_issue_per_cycle = 1;
  uint32_t ldst_queue_entries = 1;
  uint32_t coalesce_threads = 8;
  uint32_t perfect_memory_latency = 20;

  uint32_t branch_latency = 4;
  bool gating = true;
  std::vector<UnitSpec> units;

  uint32_t warps_per_subcore() const { return (max_warps + subcores - 1) / subcores; }
  // Throws std::invalid_argument naming the first impossible value.
  void validate() const;
};

}  // namespace lockstep
