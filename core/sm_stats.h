#pragma once
// Counters owned by one SM. Integers only; shards are summed in SM id order
// and every derived (floating-point) figure is computed from the merged sums.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/l1_stats.h"
#include "core/sm_memory_access.h"
#include "memsys/stat_fields.h"

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
  uint64_t const_requests = 0;
  uint64_t atomic_requests = 0;
  uint64_t reg_bank_conflicts = 0;     // extra operand-read cycles
  uint64_t icache_hits = 0;
  uint64_t icache_misses = 0;
  uint64_t exit_then_more = 0;         // warps whose trace continues after a full-mask EXIT
  // Beside the field list: counters per unit class and per stall reason, and the L1's counters.
  std::vector<uint64_t> unit_issues;   // per unit class (SmSpec::units order)
  uint64_t stalls[size_t(StallReason::kCount)] = {};
  L1Stats l1;                          // the L1 data cache's (Sm::take_stats fills them in)

  static constexpr auto fields() {
    return std::to_array<StatField<SmStats>>({
        {"smsp__inst_executed.sum", &SmStats::warp_insts},
        {"smsp__thread_inst_executed.sum", &SmStats::thread_insts},
        {"sm__ctas_launched.sum", &SmStats::blocks_launched},
        {"sm__cycles_active.sum", &SmStats::cycles_active},
        {"sm__warps_active.sum", &SmStats::warps_active_sum},
        {"smsp__inst_executed_op_memory.sum", &SmStats::mem_insts},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", &SmStats::shared_requests},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", &SmStats::shared_bank_conflicts},
        {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", &SmStats::global_ld_requests},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", &SmStats::global_ld_sectors},
        {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", &SmStats::global_st_requests},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", &SmStats::global_st_sectors},
        {"l1tex__t_sectors_pipe_lsu_mem_local.sum", &SmStats::local_sectors},
        {"lockstep__const_requests", &SmStats::const_requests},
        {"lockstep__atomic_requests", &SmStats::atomic_requests},
        {"lockstep__register_bank_conflict_cycles", &SmStats::reg_bank_conflicts},
        {"lockstep__icache_hits", &SmStats::icache_hits},
        {"lockstep__icache_misses", &SmStats::icache_misses},
        {"lockstep__warps_continuing_after_exit", &SmStats::exit_then_more},
    });
  }

  // Counts a global, local, texture or atomic instruction's request of
  // `sectors` coalesced sectors (LD/ST unit, and the memory-functional model).
  void count_sector_request(MemSpace space, SmAccessOp op, uint32_t sectors) {
    const bool global = is_global_space(space);
    if (op == SmAccessOp::kAtomic) {
      ++atomic_requests;
    } else if (space == MemSpace::kLocal) {
      local_sectors += sectors;
    } else if (global && op == SmAccessOp::kStore) {
      ++global_st_requests;
      global_st_sectors += sectors;
    } else if (global) {
      ++global_ld_requests;
      global_ld_sectors += sectors;
    }
  }

  SmStats& operator+=(const SmStats& o);
  // Visits every counter with its stable name (unit classes as "lockstep__issued.<NAME>"),
  // in the statistics files' order: the L1's counters among the LD/ST ones.
  void for_each(const std::vector<std::string>& unit_names,
                const std::function<void(const std::string&, uint64_t)>& visit) const;
};

}  // namespace lockstep
