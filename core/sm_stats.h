#pragma once
// Counters owned by one SM. Integers only; shards are summed in SM id order
// and every derived (floating-point) figure is computed from the merged sums.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lockstep {

enum class StallReason : uint8_t {
  kIdle = 0,     // no warp resident on the scheduler
  kFetch,        // instruction buffer empty or not yet decoded
  kScoreboard,   // operands or destinations still pending
  kUnitBusy,     // the execution unit's pipeline cannot accept yet
  kBarrier,      // waiting at BAR.SYNC
  kMemory,       // LD/ST unit busy, or MEMBAR/DEPBAR waiting for memory
  kCount
};
const char* stall_reason_name(StallReason r);

struct SmStats {
  uint64_t cycles_active = 0;       // cycles with at least one resident warp
  uint64_t warps_active_sum = 0;    // resident warps summed over active cycles
  uint64_t warp_insts = 0;
  uint64_t thread_insts = 0;
  uint64_t blocks_launched = 0;
  uint64_t mem_insts = 0;
  uint64_t shared_requests = 0;
  uint64_t shared_bank_conflicts = 0;  // extra LD/ST cycles spent on shared-memory bank conflicts
  uint64_t global_ld_requests = 0;
  uint64_t global_ld_sectors = 0;
  uint64_t global_st_requests = 0;
  uint64_t global_st_sectors = 0;
  uint64_t local_sectors = 0;
  uint64_t global_ld_hit_sectors = 0;  // global load sectors that hit in L1D
  uint64_t l1_miss_sectors = 0;        // sectors the L1D requested from the L2 (loads)
  uint64_t l1_fill_sectors = 0;        // sectors allocated in the L1D on fill
  uint64_t l1_mshr_merges = 0;         // load misses merged into an outstanding sector
  uint64_t l1_reservation_fails = 0;   // cycles the L1D could not take an access (MSHR or miss queue full)
  uint64_t const_requests = 0;
  uint64_t atomic_requests = 0;
  uint64_t reg_bank_conflicts = 0;     // extra operand-read cycles
  uint64_t icache_hits = 0;
  uint64_t icache_misses = 0;
  uint64_t exit_then_more = 0;         // warps whose trace continues after a full-mask EXIT
  std::vector<uint64_t> unit_issues;   // per unit class (SmSpec::units order)
  uint64_t stalls[size_t(StallReason::kCount)] = {};

  SmStats& operator+=(const SmStats& o);
  // Visits every counter with its stable name (unit classes as "unit.<NAME>").
  void for_each(const std::vector<std::string>& unit_names,
                const std::function<void(const std::string&, uint64_t)>& visit) const;
};

}  // namespace lockstep
