#pragma once
// One streaming multiprocessor of the cycle model: the composition of its
// stages (core/sm/) and their order within a cycle. Sub-cores (warp
// scheduler, operand collector, execution units each), a shared instruction
// fetch and cache, the scoreboard, the LD/ST unit with shared-memory banks
// and the memory port below it, and the block (CTA) slots with their barriers.
//
// Pipeline timing (all in core cycles; documented in docs/DESIGN.md §7):
//   fetch at t (I-cache hit)          -> decoded, issuable from t + 1
//   issue at t                          unit pipeline must accept at t; it then
//                                       accepts again at t + initiation
//   dependents may issue at t + latency + (bank-conflict cycles)
//   shared memory: t + shared_latency + (conflict cycles); the LD/ST unit is
//   busy for 1 + conflict cycles; global/local/texture/atomics: through the
//   memory port: the L1 data cache when the cycle memory system is attached
//   (the LD/ST unit is busy while the L1 looks the instruction's sectors up,
//   one line per cycle), else perfect memory at t + perfect_memory_latency;
//   constant loads (no addresses in traces) at t + perfect_memory_latency.
// Within a cycle: accept an offered block, the memory port's cycle,
// writeback, barrier release, issue (sub-cores in a rotating order), fetch.
// The SM talks to nothing outside itself within a cycle: blocks are handed to
// it between cycles by the GPU's block dispatcher, memory traffic goes
// through its latched ports, and its counters are read between cycles, so
// ticking SMs in any order, on any thread, gives the same result.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/block_slots.h"
#include "core/kernel_program.h"
#include "core/l1_data_cache.h"
#include "core/occupancy.h"
#include "core/sm/execution_units.h"
#include "core/sm/instruction_fetch.h"
#include "core/sm/issue_candidates.h"
#include "core/sm/ldst_unit.h"
#include "core/sm/operand_collector.h"
#include "core/sm/scoreboard.h"
#include "core/sm/warp_scheduler_registry.h"
#include "core/sm/warp_state.h"
#include "core/sm/writeback_queue.h"
#include "core/sm_memory_port.h"
#include "core/sm_model.h"
#include "configs/spec/sm_spec.h"
#include "core/sm_stats.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

class Sm final : public SmModel {
 public:
  Sm(uint32_t id, const SmSpec& spec);

  // The memory below the LD/ST unit: a port of SmMemoryPort (core/sm_memory_port.h).
  // Without this call: perfect memory (FixedLatencyPort of sm.perfect_memory_latency).
  void attach_memory(SmMemoryPort port) override { ldst_.attach(std::move(port)); }
  void accept(const KernelLaunch& launch, std::unique_ptr<BlockTrace> block, uint64_t now) override;
  bool tick(uint64_t now) override;
  uint64_t quiet_until(uint64_t now) const override;
  void skip_quiet_cycles(uint64_t cycles) override;
  const SmStats& stats() const override { return stats_; }
  SmStats take_stats() override;
  std::vector<std::string> describe_stuck_warps() const override;

  // Tests and debugging: called for every issued instruction with
  // (cycle, warp id within its block, block index, trace position).
  using IssueObserver = std::function<void(uint64_t, uint32_t, const Dim3&, uint32_t)>;
  void set_issue_observer(IssueObserver observer) { observer_ = std::move(observer); }

 private:
  // tick() but for its sleeping fast path: out of line, so that a sleeping
  // tick pays none of its register saves.
  [[gnu::noinline]] bool evaluate_tick(uint64_t now);
  void writeback(uint64_t now);
  void issue(uint32_t subcore, uint64_t now);
  // Issues the warp's next instruction `ti` if its resources take it (it is
  // fetched, not at a barrier and ready: checked by issue()); else says why
  // not and adds the resource that refused it to `blocked`.
  bool try_issue(WarpState& w, const TimedInstruction& ti, uint32_t warp_slot, uint64_t now, uint32_t& units_used,
                 uint32_t& blocked, StallReason& why);
  // Caches the warp's next instruction (static id, issue resource).
  void point_at_next(WarpState& w) const;
  // A warp of a block stored in segments, before fewer than lookahead_margin_
  // instructions are left in what it reads: onto a bridge to the next
  // segment's part, or from a bridge onto that part, so that fetch and issue
  // see the trace as if it were whole (results do not depend on the segment
  // size) while it holds no copy of more than a bridge.
  void cross_segments(WarpState& w, uint32_t warp_slot);
  static constexpr uint32_t kNoBridge = UINT32_MAX;
  // Whether `ti` can issue now (the checks that read no unit), else why not.
  bool ready_to_issue(WarpState& w, const TimedInstruction& ti, StallReason& why) const;
  // The warp in `warp_slot` leaves once it has issued its whole trace and
  // every result is written back (inline: called on every issue and writeback).
  void finish_warp_if_done(uint32_t warp_slot) {
    const WarpState& w = warps_[warp_slot];
    if (w.active && w.next_issue >= w.trace_size && w.outstanding == 0) finish_warp(warp_slot);
  }
  void finish_warp(uint32_t warp_slot);
  // A field fetch or issue selects warps by changed (the warp's bits in their sets).
  [[gnu::always_inline]] void warp_changed(uint32_t warp_slot);
  void release_barriers();
  uint64_t next_timed_event(uint64_t now) const;

  // Simulation gating: after a cycle in which issue and fetch changed nothing,
  // they would repeat that cycle exactly until a result is written back, the
  // memory port's instruction queue fills or frees up, or a timed event
  // (writeback, fetch, unit or LD/ST availability) comes due; until then
  // only the same stall counters are added. What such a tick reads and
  // writes of the SM itself shares one cache line: these fields and the
  // first counters of stats_ (cycles_active, warps_active_sum). Every
  // writeback is at or after sleep_until_ (next_timed_event(), and the
  // memory port's completions lower it), so a sleeping tick need not read
  // the writeback queue.
  alignas(64) uint64_t sleep_until_ = 0;
  // Cycles since the last evaluated one that repeated it (slept or skipped):
  // each adds last_stall_ again, counted in at the next evaluation or when
  // the counters are taken (the stall counters are read only then).
  uint64_t repeated_cycles_ = 0;
  bool port_accepted_when_slept_ = false;
  SmStats stats_;
  std::vector<WarpState> warps_;  // max_warps slots; slot % subcores = sub-core
  std::vector<WarpTrace> bridges_;  // per warp slot: its bridge, for a block stored in segments
  WarpTrace bridge_scratch_;
  uint32_t lookahead_margin_ = 0;   // fetch reads up to ibuffer_entries past the next issue
  uint64_t launch_seq_ = 0;
  const KernelProgram* program_ = nullptr;

  // Stages.
  InstructionFetch fetch_;
  std::vector<AnyWarpScheduler> schedulers_;  // per sub-core
  SlotLayout layout_;
  IssueCandidates candidates_;
  // Warps that finished while their sub-core issued: they leave the
  // scheduler's resident list when the issue loop over it is done.
  bool issuing_ = false;
  std::vector<uint32_t> finished_in_issue_;
  OperandCollector collectors_;
  ExecutionUnits units_;
  WritebackQueue writebacks_;
  LdstUnit ldst_;

  // Gating (the fields are at the top).
  std::vector<StallReason> last_stall_;  // per sub-core, this cycle's stall reason
  // Per sub-core: its last issue issued nothing and its first warp's stall
  // could end only by a change of a warp or the LD/ST unit (not with time
  // alone, as a busy pipeline's or a decoding instruction's does).
  std::vector<uint8_t> stall_repeats_;
  void count_repeated_stalls();
  // `cycles` ticks of a busy SM that repeat its last evaluated cycle.
  void count_repeated_cycles(uint64_t cycles) {
    stats_.cycles_active += cycles;
    stats_.warps_active_sum += cycles * slots_.resident_warps();
    repeated_cycles_ += cycles;
  }

  IssueObserver observer_;
};

}  // namespace lockstep
