#pragma once
// Instruction fetch: per sub-core, up to sm.fetch_per_cycle warps a cycle,
// round robin over the sub-core's warp slots, fill their instruction buffers
// (sm.ibuffer_entries) through the instruction cache. Fetched instructions are
// decoded and issuable the next cycle; a miss stalls that warp's fetch until
// the line is there and ends the sub-core's fetch for the cycle.
#include <cstdint>
#include <span>
#include <vector>

#include "core/kernel_program.h"
#include "core/sm/instruction_cache.h"
#include "core/sm/warp_state.h"
#include "configs/spec/sm_spec.h"
#include "core/sm_stats.h"

namespace lockstep {

class InstructionFetch {
 public:
  InstructionFetch(const SmSpec& spec, SmStats& stats);

  // Another kernel's code: the instruction cache is invalidated.
  void start_kernel() { icache_.invalidate(); }
  // `resident`: the sub-core's resident (active) warp slots, in slot order.
  void fetch(uint32_t subcore, uint64_t now, std::span<WarpState> warps, std::span<const uint32_t> resident,
             const KernelProgram& program);
  // Warps fetched for so far (a fetch changes the SM's state: gating).
  uint64_t attempts() const { return attempts_; }

 private:
  const SmSpec& spec_;
  SmStats& stats_;
  InstructionCache icache_;
  std::vector<uint32_t> last_fetched_;  // per sub-core: index (within the sub-core) of the last warp fetched for
  uint64_t attempts_ = 0;
};

}  // namespace lockstep
