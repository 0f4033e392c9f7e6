#pragma once
// One memory instruction as the LD/ST unit hands it to the memory port below
// it (core/sm_memory_port.h): its coalesced sector accesses and what it asks.
#include <cstdint>
#include <span>

#include "core/coalescer.h"
#include "frontend/trace/opcode_traits.h"

namespace lockstep {

// What an instruction does with its sectors.
enum class SmAccessOp : uint8_t {
  kLoad = 0,
  kStore,
  kAtomic,  // atomics and reductions: executed at the L2
};

// Global-space accesses (including generic, LDGSTS and texture), as the statistics count them.
inline bool is_global_space(MemSpace space) {
  return space == MemSpace::kGlobal || space == MemSpace::kGeneric || space == MemSpace::kGlobalToShared ||
         space == MemSpace::kTexture;
}
inline SmAccessOp access_op(MemOp op) {
  if (op == MemOp::kAtomic || op == MemOp::kReduction) return SmAccessOp::kAtomic;
  return op == MemOp::kStore ? SmAccessOp::kStore : SmAccessOp::kLoad;
}

struct SmMemoryAccess {
  uint32_t token = 0;  // names the instruction in the completions
  SmAccessOp op = SmAccessOp::kLoad;
  MemSpace space = MemSpace::kGlobal;
  std::span<const SectorAccess> sectors;  // at least one
  uint64_t now = 0;                        // the issue cycle
};

// A port's answer to an access whose completion it reports later, through its cycle().
inline constexpr uint64_t kCompletesLater = UINT64_MAX;

}  // namespace lockstep
