#pragma once
// What the trace side can tell from an opcode string alone: which memory space
// a memory instruction touches, what kind of access it is, and its access size
// per lane. The timing model's unit mapping lives in the ISA defs, not here.
#include <cstdint>
#include <string_view>

namespace lockstep {

enum class MemSpace : uint8_t {
  kNone = 0,
  kGlobal,
  kLocal,
  kShared,
  kConst,
  kGeneric,         // LD/ST/ATOM through the generic address space
  kTexture,
  kGlobalToShared,  // LDGSTS asynchronous copy
};

enum class MemOp : uint8_t { kNone = 0, kLoad, kStore, kAtomic, kReduction };

struct OpcodeTraits {
  MemSpace space = MemSpace::kNone;
  MemOp op = MemOp::kNone;
  uint8_t access_bytes = 0;  // from the opcode suffix; 0 when it names none
};

OpcodeTraits classify_opcode(std::string_view opcode);
const char* mem_space_name(MemSpace space);
const char* mem_op_name(MemOp op);

}  // namespace lockstep
