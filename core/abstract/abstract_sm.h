#pragma once
// The abstract timing model of one SM for one kernel (GATSim §II-C, Alg. 1,
// with the extensions of §II-D/E): an occupancy vector over the resident
// warps (the cycle each can issue again), the configured warp scheduler of
// each sub-core (core/sm/warp_scheduler_registry.h) with its issue width,
// blocks accepted under the kernel's occupancy limits (core/block_slots.h),
// block barriers, and contention for the execution pipelines
// and the operand collectors (core/abstract/issue_resources.h) and the shared LD/ST
// unit. An issued instruction makes its warp wait its pre-characterised
// delay (core/abstract/characterisation.h); a memory instruction whose data
// comes later than in the characterisation holds back the first instruction
// that reads its result; an SM's share of the kernel's L2 and DRAM bandwidth
// (share_bandwidth(), core/abstract/memory_levels.h) is a queue. Ready warps
// are kept per sub-core as bit sets, with one bit set per issue resource
// (core/abstract/ready_warps.h), and waiting ones in a calendar by the cycle
// they can issue (core/abstract/wake_calendar.h): the scheduler's order is
// walked over the ready warps only, and a resource refused in a cycle
// removes all its warps at once. Time jumps over cycles in which no
// sub-core can issue. Independent of every other SM: SMs of a kernel run on
// any thread in any order.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/abstract/basic_blocks.h"
#include "core/abstract/characterisation.h"
#include "core/abstract/issue_resources.h"
#include "core/abstract/memory_levels.h"
#include "core/abstract/ready_warps.h"
#include "core/abstract/sm_workload.h"
#include "core/abstract/wake_calendar.h"
#include "core/block_slots.h"
#include "core/divisor.h"
#include "core/sm/slot_layout.h"
#include "core/sm/warp_scheduler_registry.h"
#include "core/sm/warp_state.h"
#include "core/sm_stats.h"

namespace lockstep {

// What every SM of a kernel shares (read only).
struct AbstractKernel {
  const SmSpec* sm = nullptr;
  const KernelProgram* program = nullptr;
  const BasicBlocks* blocks = nullptr;
  const KernelCharacterisation* timing = nullptr;
  const std::vector<MemoryCost>* costs = nullptr;  // what SmWorkload::memory indexes (KernelWorkload::costs)
  KernelLaunch launch;
  MemoryLatencies latencies;
  // Block launch costs, as the cycle model's dispatcher charges them
  // (LaunchSpec): the n-th block of the kernel goes to an SM no earlier than
  // n x block_interval cycles after the first, and an SM takes a block at
  // most every sm_block_interval cycles.
  uint32_t block_interval = 0;
  uint32_t sm_block_interval = 1;
};

struct AbstractSmResult {
  uint64_t cycles = 0;  // from the kernel's start to the retirement of the SM's last block, plus one
  SmStats stats;
};

class AbstractSm {
 public:
  AbstractSm(const AbstractKernel& kernel);
  // Times all of `work` (every block of the SM's kernel).
  AbstractSmResult run(const SmWorkload& work);
  // Times `work` as it is read: runs until the SM needs a block `work` does
  // not hold yet (false; call again once more are added) or, with `all`
  // (every block is there), to the end (true). The same timing as run(),
  // however the blocks come.
  bool advance(const SmWorkload& work, bool all);
  // The first block of `work` a later advance() still reads.
  uint32_t first_block_needed() const;
  // After advance() returned true.
  AbstractSmResult result();

 private:
  struct PendingResult {
    uint32_t static_id = 0;
    uint64_t done = 0;
  };
  // Memory results a warp tracks at once (later than characterised): a warp
  // with more in flight waits for the oldest. The scoreboard has no such
  // limit; 8 made lud's sixteen independent loads wait for each other (+23%).
  static constexpr uint32_t kPendingResults = 32;
  struct Warp {
    uint64_t ready_at = 0;         // occupancy: the first cycle it may issue again
    uint64_t last_result = 0;      // the cycle its last result is written back
    uint64_t memory_done = 0;      // the cycle its last memory access completes
    uint32_t path = 0, path_end = 0;
    uint32_t inst = 0, inst_end = 0;  // into the characterisation
    uint32_t memory = 0;
    uint32_t block = 0;               // block slot
    uint16_t barrier_delay = 1;
    bool cold = false;
    bool at_barrier = false;
    bool issuing = false;             // instructions left to issue
    uint32_t pending = 0;             // results[0, pending): in issue order
    // LDGSTS groups (DEPBAR): closed so far, and when each of the last kCopyGroups completes.
    uint32_t groups_closed = 0;
    std::array<uint64_t, kCopyGroups> group_done{};
    std::array<PendingResult, kPendingResults> results;
  };

  void accept_block(const SmWorkload& work, uint32_t index, uint64_t now);
  // The first cycle at or after `now` at which block `index` may be accepted, as far as the launch costs go.
  uint64_t dispatch_slot(const SmWorkload& work, uint32_t index, uint64_t now) const {
    return std::max({now, dispatch_at_, uint64_t(work.blocks[index].order) * k_.block_interval});
  }
  bool enter_next_block(Warp& w, uint64_t now);
  void issue_subcore(uint32_t sc, uint64_t now);
  // Issues the warp's next instruction, whose resource is free; false if it
  // waits for a result, a memory barrier or a copy group (ready_at).
  bool try_issue(Warp& w, uint32_t slot, uint32_t sc, uint64_t now, uint32_t& units_used);
  uint64_t bandwidth(uint64_t& free, uint32_t sectors, uint32_t cost, uint64_t now) const;
  uint64_t results_ready(Warp& w, const CharacterisedInstruction& ci, uint64_t now);
  // Forgets the results written back by `now`, keeping the others in issue order: what
  // the list holds then depends only on `now`, not on when the warp was last looked at.
  void prune_results(Warp& w, uint64_t now);
  void finish_warp(uint32_t slot, uint64_t now);
  void release_barriers(uint64_t now) {
    if (warps_at_barrier_ != 0) release_waiting_warps(now);
  }
  void release_waiting_warps(uint64_t now);
  // Ready warps: per sub-core the ready bits and the resource of each warp's
  // next instruction (ReadyWarps), and the calendar of the waiting ones. An
  // issuing warp not at a barrier is either ready or in the calendar.
  // The warp waits in the calendar until its ready_at.
  // (`sc`, `index`: the slot's sub-core and index in it.)
  void wake(uint32_t slot, uint32_t sc, uint32_t index, uint64_t now);
  // After an issue attempt at `now`: the warp's next instruction and state,
  // and the calendar if it cannot issue before a later cycle (one that
  // issued and can issue again next cycle stays ready).
  void requeue(uint32_t slot, uint32_t sc, uint32_t index, uint64_t now, bool issued);
  // The issue resource of an instruction: the LD/ST unit (bit 0) or its unit class u (bit 1 + u), 0 for none.
  static uint32_t resource_of(const CharacterisedInstruction& ci) {
    return ci.memory ? 1u : ci.unit == kNoUnit ? 0u : 2u << ci.unit;
  }
  // Sub-core `sc` can issue an instruction needing `resource` at `now` (as far as
  // the other issues of the cycle go).
  bool resource_free(uint32_t resource, uint32_t sc, uint64_t now) const {
    if (resource == 0) return true;
    if (resource & 1u) return ldst_free_ <= now && !(ldst_cycle_ == now && ldst_issued_ >= spec_.ldst_issue_per_cycle);
    return resources_.unit_free(sc, uint32_t(std::countr_zero(resource)) - 1, now);
  }
  // The first cycle after `now` at which `resource` (one bit), refused at `now`,
  // may be free for sub-core `sc` as far as is known now (at most a few cycles on).
  uint64_t resource_free_from(uint32_t resource, uint32_t sc, uint64_t now) const;

  const AbstractKernel& k_;
  const SmWorkload* work_ = nullptr;
  const SmSpec& spec_;
  BlockSlots slots_;
  std::vector<std::unique_ptr<BlockTrace>> spare_;  // block placeholders for the slots (warp counts)
  std::vector<Warp> warps_;
  std::vector<WarpState> view_;  // what the schedulers read: age, memory in flight (GTO, two-level)
  std::vector<AnyWarpScheduler> schedulers_;
  std::vector<WarpScheduler*> scheduler_base_;  // per sub-core: its scheduler's policy-independent part
  // The configured policy, found once: LRR and GTO walk the ready bits, the others their order().
  enum class Policy : uint8_t { kLrr, kGto, kTwoLevel, kOther };
  Policy policy_ = Policy::kOther;
  IssueResources resources_;  // the pipelines and operand collectors
  SlotLayout layout_;
  Divisor subcores_;  // the first sub-core to issue in cycle c is c % subcores
  ReadyWarps ready_;
  uint64_t ldst_free_ = 0, ldst_cycle_ = UINT64_MAX;
  uint32_t ldst_issued_ = 0;
  uint64_t l2_free_ = 0, dram_free_ = 0;  // in 1/256 cycles
  uint64_t port_free_ = 0;                // the L1's requests to the L2 sent by (1/256 cycles)
  uint64_t reply_free_ = 0;               // the replies taken by (1/256 cycles)
  // Per basic block: from when the SM's instruction cache holds it (UINT64_MAX:
  // not fetched yet). A warp that enters it earlier meets the same misses.
  std::vector<uint64_t> warm_from_;
  std::vector<uint64_t> subcore_ready_;   // no warp of the sub-core can issue before
  std::vector<WakeCalendar> waiting_;     // per sub-core
  uint32_t warps_at_barrier_ = 0;
  std::vector<std::pair<uint64_t, uint32_t>> finishing_;  // (cycle, warp slot): done issuing, results in flight
  uint64_t finishing_first_ = UINT64_MAX;                  // the earliest cycle in finishing_ (UINT64_MAX: none)
  std::vector<uint32_t> finished_in_issue_;
  std::vector<uint32_t> block_of_slot_;   // block slot -> index into SmWorkload::blocks
  // Where advance() goes on: the cycle and the next block of the workload.
  uint64_t now_ = 0;
  uint32_t next_block_ = 0;
  uint64_t launch_seq_ = 0, last_retire_ = 0;
  uint64_t dispatch_at_ = 0;
  bool retired_any_ = false;
  bool in_issue_ = false;
  SmStats stats_;
};

}  // namespace lockstep
