#pragma once
// Pre-characterisation (GATSim §II-A): every basic block of a kernel run once,
// in PC order, through the cycle model's SM (core/sm.h) for one warp with
// perfect memory (core/fixed_latency_port.h), and per instruction its
// issue-to-next-issue delay and unit class recorded. The sequence runs twice
// on the same SM: the first pass with a cold instruction cache gives the
// delays of a block's first visit on an SM, the second the warm ones.
#include <cstdint>
#include <vector>

#include "core/abstract/basic_blocks.h"
#include "core/kernel_program.h"
#include "configs/spec/sm_spec.h"

namespace lockstep {

struct CharacterisedInstruction {
  uint32_t static_id = 0;
  uint16_t delay = 1;       // issue to the warp's next issue, warm instruction cache
  uint16_t cold_delay = 1;  // the same on the block's first visit
  uint16_t unit = kNoUnit;  // unit class (kNoUnit: none, or the LD/ST path for memory)
  InstKind kind = InstKind::kAlu;
  bool memory = false;
  // It reads or overwrites a register a memory instruction of the kernel writes.
  bool reads_memory_result = false;
  uint8_t num_dsts = 0;
  uint8_t bank_conflicts = 0;  // register-bank conflict cycles collecting its operands
  bool async_copy = false;     // LDGSTS (its completion closes a DEPBAR group)
  // Memory: the latency the characterisation ran with (a longer one delays
  // the first reader); else issue to writeback of its result (0: none).
  uint32_t result_latency = 0;
};

struct KernelCharacterisation {
  std::vector<CharacterisedInstruction> insts;  // parallel to BasicBlocks::insts()
  // Per basic block: how much longer its first visit takes (its instruction-cache misses).
  std::vector<uint32_t> cold_extra;
  uint32_t startup_cold = 1;  // block accepted -> first issue, cold instruction cache
  uint32_t startup_warm = 1;
  uint64_t sm_cycles = 0;     // cycles the two passes took on the reference SM
};

// `sm` is the configured SM; global and constant accesses run with
// `memory_latency` (the shortest latency the timing model will give them).
KernelCharacterisation characterise(const BasicBlocks& blocks, const KernelProgram& program, const SmSpec& sm,
                                    uint32_t memory_latency);

}  // namespace lockstep
