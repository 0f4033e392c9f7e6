#pragma once
// Instruction fetch: per sub-core, up to sm.fetch_per_cycle warps a cycle,
// round robin over the sub-core's warp slots, fill their instruction buffers
// (sm.ibuffer_entries) through the instruction cache. Fetched instructions are
// decoded and issuable the next cycle; a miss stalls that warp's fetch until
// the line is there and ends the sub-core's fetch for the cycle.
//
// Only a warp with room in its buffer and instructions left can fetch: fetch
// keeps those in a bit set per sub-core (`wants_fetch`), updated when a warp
// arrives or issues (warp_changed) and when it fetches, so that a cycle's
// round robin walks only them, not every resident warp.
#include <cstdint>
#include <span>
#include <vector>

#include "core/kernel_program.h"
#include "core/sm/instruction_cache.h"
#include "core/sm/slot_layout.h"
#include "core/sm/warp_state.h"
#include "configs/spec/sm_spec.h"
#include "core/sm_stats.h"

namespace lockstep {

class InstructionFetch {
 public:
  InstructionFetch(const SmSpec& spec, SmStats& stats);

  // Another kernel's code: the instruction cache is invalidated.
  void start_kernel() { icache_.invalidate(); }
  // The warp in `slot` arrived, issued or left: whether it can fetch may have changed.
  void warp_changed(uint32_t slot, const WarpState& w);
  void fetch(uint32_t subcore, uint64_t now, std::span<WarpState> warps, const KernelProgram& program) {
    filled_.clear();
    if (words_per_subcore_ == 1 && wanting_[subcore] == 0) return;  // (inline: most sub-cores, most cycles)
    fetch_wanting(subcore, now, warps, program);
  }
  // The earliest cycle after `now` at which a warp that wants to fetch stops
  // waiting for an instruction-cache miss (UINT64_MAX: none waits).
  uint64_t next_unblock(uint64_t now, std::span<const WarpState> warps) const;
  // Warps fetched for so far (a fetch changes the SM's state: gating).
  uint64_t attempts() const { return attempts_; }
  // The slots whose instruction buffer the last fetch() call filled.
  std::span<const uint32_t> filled() const { return filled_; }

 private:
  enum class Outcome { kWaiting, kMissed, kFilled };
  void fetch_wanting(uint32_t subcore, uint64_t now, std::span<WarpState> warps, const KernelProgram& program);
  // Fetches for the warp at `index` of sub-core `subcore`: it waits for a
  // miss, misses now (ending the sub-core's fetch) or fills its buffer.
  Outcome fetch_for(uint32_t subcore, uint32_t index, uint64_t now, std::span<WarpState> warps,
                    const KernelProgram& program);
  bool wants_fetch(const WarpState& w) const {
    return w.active && w.next_fetch < w.trace_size && w.next_fetch - w.next_issue < spec_.ibuffer_entries;
  }
  // The next warp (index within the sub-core) at or after `from` that wants to fetch, or UINT32_MAX.
  uint32_t next_wanting(uint32_t subcore, uint32_t from) const;

  const SmSpec& spec_;
  SmStats& stats_;
  InstructionCache icache_;
  uint32_t slots_per_subcore_;
  SlotLayout layout_;
  std::vector<uint64_t> wanting_;       // per sub-core, words of one bit per warp index within it
  uint32_t words_per_subcore_;
  std::vector<uint32_t> last_fetched_;  // per sub-core: index (within the sub-core) of the last warp fetched for
  uint64_t attempts_ = 0;
  std::vector<uint32_t> filled_;  // capacity fetch_per_cycle: no allocation
};

}  // namespace lockstep
