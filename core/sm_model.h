#pragma once
// What the block dispatcher and the cycle engine call on an SM, whatever model
// times its warps (the cycle model, core/sm.h; more to come): residency and
// the hand-over of blocks, one tick per core cycle, fast-forward, statistics
// and a description for the watchdog. The block slots (core/block_slots.h)
// and the offer of a block between cycles are the same for every model and
// live here; a model implements the rest. The calls are per SM per cycle
// (never per instruction), so they may be virtual.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "configs/spec/sm_spec.h"
#include "core/block_slots.h"
#include "core/sm_memory_port.h"
#include "core/sm_stats.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

class SmModel {
 public:
  using Residency = BlockSlots::Residency;

  SmModel(uint32_t id, const SmSpec& spec) : id_(id), spec_(spec), slots_(spec) {}
  virtual ~SmModel() = default;
  SmModel(const SmModel&) = delete;
  SmModel& operator=(const SmModel&) = delete;

  uint32_t id() const { return id_; }

  // The memory below the SM's LD/ST unit (core/sm_memory_port.h), attached by
  // the memory model when the GPU is built.
  virtual void attach_memory(SmMemoryPort port) = 0;

  // What the block dispatcher needs to know of an SM.
  Residency residency() const { return slots_.residency(); }
  // Whether an SM of `spec` in state `r` can take a block of `launch`.
  static bool can_accept(const Residency& r, const KernelLaunch& launch, const SmSpec& spec) {
    return BlockSlots::can_accept(r, launch, spec);
  }
  bool can_accept(const KernelLaunch& launch) const { return can_accept(residency(), launch, spec_); }
  // Takes a block at once (between cycles).
  virtual void accept(const KernelLaunch& launch, std::unique_ptr<BlockTrace> block, uint64_t now) = 0;
  // The threaded dispatcher's hand-over: the block is accepted at the start
  // of the SM's tick of the same cycle (exactly as accept() then tick()), on
  // the thread that ticks the SM, so the dispatcher writes none of its warp
  // state. At most one block per SM per cycle.
  void offer(const KernelLaunch& launch, std::unique_ptr<BlockTrace> block, uint64_t now) {
    if (offered_block_) throw std::logic_error("SmModel::offer: a second block in one cycle");
    offered_block_ = std::move(block);
    offered_launch_ = launch;
    offered_now_ = now;
  }
  bool has_offered_block() const { return offered_block_ != nullptr; }
  // The kernel whose blocks the SM holds or held last (UINT32_MAX before any).
  uint32_t current_kernel() const { return slots_.current_kernel(); }
  // Called between cycles by the dispatcher: moves the traces of retired
  // blocks to `spares`, to be decoded into again (no allocation per block).
  void take_spent_blocks(std::vector<std::unique_ptr<BlockTrace>>& spares) { slots_.take_spent_blocks(spares); }
  // Blocks retired since the last call (all of current_kernel()).
  uint32_t take_retired_blocks() { return slots_.take_retired_blocks(); }
  bool busy() const { return slots_.resident_blocks() > 0; }

  // Advances one core cycle (first accepting an offered block). Returns false
  // when the SM holds no block.
  virtual bool tick(uint64_t now) = 0;
  // Fast-forward: the first cycle after `now` (the last one ticked) whose
  // tick() could do more than repeat the last evaluated cycle, given that no
  // memory reply arrives before it; UINT64_MAX when the SM holds no block
  // (or only warps that wait for memory).
  virtual uint64_t quiet_until(uint64_t now) const = 0;
  // The statistics of `cycles` ticks that quiet_until() said repeat the last one.
  virtual void skip_quiet_cycles(uint64_t cycles) = 0;

  // The SM's own counters so far (the memory port's are added by take_stats()).
  virtual const SmStats& stats() const = 0;
  // Returns and resets the counters, the memory port's in SmStats::l1.
  virtual SmStats take_stats() = 0;
  // One line per resident warp that cannot make progress (for the watchdog).
  virtual std::vector<std::string> describe_stuck_warps() const = 0;

 protected:
  // Accepts the block offered for this cycle, if any (the start of tick()).
  void accept_offered_block() {
    if (offered_block_) accept(offered_launch_, std::move(offered_block_), offered_now_);  // (moved from: null again)
  }

  // Laid out so that what every tick reads first (the offered block's
  // pointer, the residency counters and the barriers to open at the start
  // of slots_) shares the object's first cache line with the vtable pointer.
  const uint32_t id_;
  const SmSpec& spec_;

 private:
  std::unique_ptr<BlockTrace> offered_block_;  // the block offered for this cycle; null: none

 protected:
  BlockSlots slots_;

 private:
  KernelLaunch offered_launch_;  // (meaningful while offered_block_ is set)
  uint64_t offered_now_ = 0;
};

}  // namespace lockstep
