#include "core/sm_stats.h"

#include <algorithm>

namespace lockstep {

const char* stall_reason_name(StallReason r) {
  switch (r) {
    case StallReason::kIdle: return "idle";
    case StallReason::kFetch: return "fetch";
    case StallReason::kScoreboard: return "scoreboard";
    case StallReason::kUnitBusy: return "unit_busy";
    case StallReason::kBarrier: return "barrier";
    case StallReason::kMemory: return "memory";
    case StallReason::kCount: break;
  }
  return "?";
}

SmStats& SmStats::operator+=(const SmStats& o) {
  cycles_active += o.cycles_active;
  warps_active_sum += o.warps_active_sum;
  warp_insts += o.warp_insts;
  thread_insts += o.thread_insts;
  blocks_launched += o.blocks_launched;
  mem_insts += o.mem_insts;
  shared_requests += o.shared_requests;
  shared_bank_conflicts += o.shared_bank_conflicts;
  global_ld_requests += o.global_ld_requests;
  global_ld_sectors += o.global_ld_sectors;
  global_st_requests += o.global_st_requests;
  global_st_sectors += o.global_st_sectors;
  local_sectors += o.local_sectors;
  global_ld_hit_sectors += o.global_ld_hit_sectors;
  l1_miss_sectors += o.l1_miss_sectors;
  l1_fill_sectors += o.l1_fill_sectors;
  l1_mshr_merges += o.l1_mshr_merges;
  l1_reservation_fails += o.l1_reservation_fails;
  const_requests += o.const_requests;
  atomic_requests += o.atomic_requests;
  reg_bank_conflicts += o.reg_bank_conflicts;
  icache_hits += o.icache_hits;
  icache_misses += o.icache_misses;
  exit_then_more += o.exit_then_more;
  if (unit_issues.size() < o.unit_issues.size()) unit_issues.resize(o.unit_issues.size());
  for (size_t i = 0; i < o.unit_issues.size(); ++i) unit_issues[i] += o.unit_issues[i];
  for (size_t i = 0; i < size_t(StallReason::kCount); ++i) stalls[i] += o.stalls[i];
  return *this;
}

void SmStats::for_each(const std::vector<std::string>& unit_names,
                       const std::function<void(const std::string&, uint64_t)>& visit) const {
  visit("smsp__inst_executed.sum", warp_insts);
  visit("smsp__thread_inst_executed.sum", thread_insts);
  visit("sm__ctas_launched.sum", blocks_launched);
  visit("sm__cycles_active.sum", cycles_active);
  visit("sm__warps_active.sum", warps_active_sum);
  visit("smsp__inst_executed_op_memory.sum", mem_insts);
  visit("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", shared_requests);
  visit("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", shared_bank_conflicts);
  visit("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", global_ld_requests);
  visit("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", global_ld_sectors);
  visit("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", global_ld_hit_sectors);
  visit("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", global_st_requests);
  visit("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", global_st_sectors);
  visit("l1tex__t_sectors_pipe_lsu_mem_local.sum", local_sectors);
  visit("lockstep__l1_miss_sectors", l1_miss_sectors);
  visit("lockstep__l1_fill_sectors", l1_fill_sectors);
  visit("lockstep__l1_mshr_merges", l1_mshr_merges);
  visit("lockstep__l1_reservation_fails", l1_reservation_fails);
  visit("lockstep__const_requests", const_requests);
  visit("lockstep__atomic_requests", atomic_requests);
  visit("lockstep__register_bank_conflict_cycles", reg_bank_conflicts);
  visit("lockstep__icache_hits", icache_hits);
  visit("lockstep__icache_misses", icache_misses);
  visit("lockstep__warps_continuing_after_exit", exit_then_more);
  for (size_t i = 0; i < unit_issues.size(); ++i)
    visit("lockstep__issued." + (i < unit_names.size() ? unit_names[i] : std::to_string(i)), unit_issues[i]);
  for (size_t i = 0; i < size_t(StallReason::kCount); ++i)
    visit(std::string("lockstep__stall.") + stall_reason_name(StallReason(i)), stalls[i]);
}

}  // namespace lockstep
