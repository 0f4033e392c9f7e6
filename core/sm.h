#pragma once
// One streaming multiprocessor: sub-cores (warp scheduler, register-file
// banks, execution units each), a shared instruction cache and fetch, the
// LD/ST unit with shared-memory banks and the memory port, and the block
// (CTA) slots with their barriers.
//
// Pipeline timing (all in core cycles; documented in docs/DESIGN.md §7):
//   fetch at t (I-cache hit)          -> decoded, issuable from t + 1
//   issue at t                          unit pipeline must accept at t; it then
//                                       accepts again at t + initiation
//   dependents may issue at t + latency + (bank-conflict cycles)
//   shared memory: t + shared_latency + (conflict cycles); the LD/ST unit is
//   busy for 1 + conflict cycles; global/local/texture/atomics: through the
//   L1 data cache and the memory port when one is attached (the LD/ST unit is
//   busy while the L1 looks the instruction's sectors up, one line per
//   cycle), else (--perfect-memory) at t + perfect_memory_latency; constant
//   loads (no addresses in traces) at t + perfect_memory_latency.
// The SM talks to nothing outside itself within a cycle: blocks are handed to
// it between cycles by the GPU's block dispatcher, memory traffic goes
// through its latched ports, and its counters are read between cycles, so
// ticking SMs in any order, on any thread, gives the same result.
#include <array>
#include <bitset>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <queue>
#include <string>
#include <vector>

#include "core/kernel_program.h"
#include "core/l1_data_cache.h"
#include "core/occupancy.h"
#include "configs/spec/sm_spec.h"
#include "core/sm_stats.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

struct KernelLaunch {
  uint32_t kernel_index = 0;
  const KernelProgram* program = nullptr;
  Occupancy occupancy;
  uint32_t warps_per_block = 0;
  uint8_t stat_slot = 0;  // the kernel's memory statistics slot
};

class Sm {
 public:
  static constexpr uint32_t kCopyGroups = 16;  // LDGSTS groups tracked per warp
  Sm(uint32_t id, const SmSpec& spec);

  uint32_t id() const { return id_; }
  // Global, local, texture and atomic accesses go through an L1 data cache and
  // these ports (without this call: perfect memory).
  void attach_memory(const L1dSpec& l1d, LatchedQueue<MemPacket>* to_memory, LatchedQueue<MemPacket>* from_memory);
  // What the block dispatcher needs to know of an SM.
  struct Residency {
    uint32_t blocks = 0;           // resident blocks
    uint32_t warps = 0;            // resident (unfinished) warps
    uint32_t kernel = UINT32_MAX;  // current_kernel()
    bool operator==(const Residency&) const = default;
  };
  Residency residency() const { return Residency{resident_blocks_, resident_warps_, current_kernel_}; }
  // Whether an SM of `spec` in state `r` can take a block of `launch`.
  static bool can_accept(const Residency& r, const KernelLaunch& launch, const SmSpec& spec);
  // Called between cycles by the dispatcher.
  bool can_accept(const KernelLaunch& launch) const { return can_accept(residency(), launch, spec_); }
  void accept(const KernelLaunch& launch, std::unique_ptr<BlockTrace> block, uint64_t now);
  // The threaded dispatcher's hand-over: the block is accepted at the start
  // of the SM's tick of the same cycle (exactly as accept() then tick()), on
  // the thread that ticks the SM, so the dispatcher writes none of its warp
  // state. At most one block per SM per cycle.
  void offer(const KernelLaunch& launch, std::unique_ptr<BlockTrace> block, uint64_t now) {
    if (offered_.block) throw std::logic_error("Sm::offer: a second block in one cycle");
    offered_ = OfferedBlock{launch, std::move(block), now};
  }
  bool has_offered_block() const { return offered_.block != nullptr; }
  // Advances one core cycle. Returns false when the SM holds no block.
  bool tick(uint64_t now);
  bool busy() const { return resident_blocks_ > 0; }
  // Fast-forward. The first cycle after `now` (the last one ticked) whose
  // tick() could do more than repeat the last evaluated cycle, given that no
  // memory reply arrives before it; UINT64_MAX when the SM holds no block
  // (or only warps that wait for memory).
  uint64_t quiet_until(uint64_t now) const;
  // The statistics of `cycles` ticks that quiet_until() said repeat the last one.
  void skip_quiet_cycles(uint64_t cycles);
  // The kernel whose blocks the SM holds or held last (UINT32_MAX before any).
  uint32_t current_kernel() const { return current_kernel_; }
  // Called between cycles by the dispatcher: moves the traces of retired
  // blocks to `spares`, to be decoded into again (no allocation per block).
  void take_spent_blocks(std::vector<std::unique_ptr<BlockTrace>>& spares) {
    for (auto& b : spent_blocks_) spares.push_back(std::move(b));
    spent_blocks_.clear();
  }
  // Blocks retired since the last call (all of current_kernel()).
  uint32_t take_retired_blocks() {
    const uint32_t n = retired_blocks_;
    retired_blocks_ = 0;
    return n;
  }

  // Tests and debugging: called for every issued instruction with
  // (cycle, warp id within its block, block index, trace position).
  using IssueObserver = std::function<void(uint64_t, uint32_t, const Dim3&, uint32_t)>;
  void set_issue_observer(IssueObserver observer) { observer_ = std::move(observer); }

  const SmStats& stats() const { return stats_; }
  SmStats take_stats();  // returns and resets the counters
  // One line per resident warp that cannot make progress (for the watchdog).
  std::vector<std::string> describe_stuck_warps() const;

 private:
  struct OfferedBlock {
    KernelLaunch launch;
    std::unique_ptr<BlockTrace> block;  // null: none offered
    uint64_t now = 0;
  };
  OfferedBlock offered_;
  struct Warp {
    bool active = false;
    uint32_t block = 0;           // block slot
    const WarpTrace* trace = nullptr;
    uint32_t next_fetch = 0;      // trace index of the next instruction to fetch
    uint32_t next_issue = 0;      // trace index of the next instruction to issue
    uint32_t next_static = 0;     // its static instruction (index into the kernel program)
    uint64_t fetch_ready = 0;     // decoded instructions up to next_fetch are issuable from this cycle
    uint64_t fetch_blocked_until = 0;
    uint32_t outstanding = 0;     // results not written back yet
    uint32_t outstanding_memory = 0;
    // LDGSTS groups: copies join the open group (number `groups_closed`);
    // LDGDEPBAR closes it; DEPBAR waits for the closed groups to drain.
    uint32_t groups_closed = 0;
    std::array<uint16_t, kCopyGroups> group_pending{};
    bool at_barrier = false;
    bool waiting_membar = false;
    // The next instruction waits on the scoreboard: nothing to check until a
    // result of this warp is written back (the only event that clears a bit).
    bool scoreboard_blocked = false;
    bool saw_full_exit = false;
    uint64_t age = 0;             // launch order, for GTO
    std::bitset<kNumScoreboardRegs> pending;
  };

  struct Block {
    bool active = false;
    std::unique_ptr<BlockTrace> trace;
    std::vector<uint32_t> warp_slots;
    uint32_t live_warps = 0;
    uint32_t at_barrier = 0;
  };
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  struct Writeback {
    uint64_t cycle;
    uint64_t seq;
    uint32_t warp;
    const TimedInstruction* inst;
    bool memory;
    uint32_t copy_group;  // LDGSTS group, or kNoGroup
    bool operator>(const Writeback& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
  };

  void writeback(uint64_t now);
  void issue(uint32_t subcore, uint64_t now);
  void fetch(uint32_t subcore, uint64_t now);
  bool try_issue(Warp& w, uint32_t warp_slot, uint64_t now, uint32_t& units_used, StallReason& why);
  void execute_memory(Warp& w, uint32_t warp_slot, const TimedInstruction& ti, const WarpInstruction& wi, uint64_t now);
  // Whether loads of this space allocate in the L1D.
  bool l1d_caches(MemSpace space) const;
  // An access the L1 reported complete (at `cycle`).
  void access_done(uint32_t token, uint64_t cycle);
  uint32_t register_bank_extra(const TimedInstruction& ti) const;
  void finish_warp_if_done(uint32_t warp_slot);
  void retire_block(uint32_t block_slot);
  void release_barriers();
  bool icache_lookup(uint64_t line, uint64_t now, uint64_t& ready_at);
  void order_candidates(uint32_t subcore);

  const uint32_t id_;
  const SmSpec& spec_;
  SmStats stats_;

  std::vector<Warp> warps_;     // max_warps slots; slot % subcores = sub-core
  std::vector<Block> blocks_;   // max_blocks slots
  uint32_t resident_blocks_ = 0;
  uint32_t retired_blocks_ = 0;
  uint32_t resident_warps_ = 0;
  uint32_t current_kernel_ = UINT32_MAX;
  uint64_t launch_seq_ = 0;
  const KernelProgram* program_ = nullptr;

  // Per sub-core state.
  std::vector<uint32_t> unit_first_pipe_;            // unit class -> its first pipeline index
  std::vector<std::vector<uint64_t>> unit_free_at_;  // [subcore][pipeline]: cycle it accepts again
  std::vector<std::vector<uint64_t>> collector_free_at_;  // [subcore][collector unit]
  std::vector<uint32_t> last_issued_;                // scheduler memory for LRR / GTO
  std::vector<uint32_t> last_fetched_;
  std::vector<std::vector<uint32_t>> candidates_;    // scratch: issue order per sub-core

  // LD/ST unit.
  std::unique_ptr<L1DataCache> l1_;
  // Memory instructions in the L1 / memory system, by token: completes when all its accesses have.
  struct InflightAccess {
    uint32_t warp = 0;
    const TimedInstruction* inst = nullptr;
    uint32_t copy_group = kNoGroup;
    uint32_t remaining = 0;
    uint64_t ready = 0;
  };
  std::vector<InflightAccess> inflight_;
  std::vector<uint32_t> free_tokens_;
  std::vector<SectorAccess> coalesced_;  // scratch
  uint64_t ldst_free_at_ = 0;
  uint32_t ldst_issued_this_cycle_ = 0;
  uint64_t ldst_cycle_ = UINT64_MAX;

  // Instruction cache: tags per set, LRU by last-use cycle; lines valid from `ready`.
  struct ICacheLine {
    uint64_t tag = UINT64_MAX;
    uint64_t ready = 0;
    uint64_t last_use = 0;
  };
  std::vector<ICacheLine> icache_;
  uint32_t icache_sets_ = 1;

  // Simulation gating: after a cycle in which issue and fetch changed nothing,
  // they would repeat that cycle exactly until a result is written back, the
  // L1's instruction queue fills or frees up, or a timed event
  // (writeback, fetch, unit or LD/ST availability) comes due; until then
  // only the same stall counters are added.
  uint64_t sleep_until_ = 0;
  bool l1_accepted_when_slept_ = false;
  std::vector<StallReason> last_stall_;  // per sub-core, this cycle's stall reason
  uint64_t fetch_attempts_ = 0;
  std::vector<uint32_t> barrier_releases_;  // blocks whose barrier opens at the next issue
  std::vector<std::unique_ptr<BlockTrace>> spent_blocks_;  // traces of retired blocks (take_spent_blocks)
  uint64_t next_timed_event(uint64_t now) const;

  std::priority_queue<Writeback, std::vector<Writeback>, std::greater<Writeback>> pending_;
  uint64_t wb_seq_ = 0;
  IssueObserver observer_;
};

}  // namespace lockstep
