#pragma once
// What the SM needs to know about a static instruction beyond its operands:
// the unit class that executes it and how it behaves (memory, barrier, exit,
// ...). Resolved once per kernel from the ISA def; never per dynamic instruction.
#include <cstdint>

namespace lockstep {

enum class InstKind : uint8_t {
  kAlu = 0,      // executes on its unit and writes its destinations after the latency
  kBranch,       // BRA, JMP, CALL, RET, BSSY, BSYNC, ... (control; no memory)
  kMemory,       // goes through the LD/ST unit; memory space from the opcode
  kBarrier,      // BAR.SYNC / BAR.RED / BAR.ARV: block-wide barrier
  kMemBarrier,   // MEMBAR: waits until the warp's outstanding memory accesses complete
  kExit,         // EXIT: the active threads finish; the warp ends when no thread is left
  kDepBar,       // DEPBAR: waits for LDGSTS groups
  kLdgDepBar,    // LDGDEPBAR: closes the current LDGSTS group
  kNop,          // NOP and other instructions with no effect on timing beyond issue
};

const char* inst_kind_name(InstKind kind);

}  // namespace lockstep
