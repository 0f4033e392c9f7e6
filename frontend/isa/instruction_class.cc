#include "frontend/isa/instruction_class.h"

namespace lockstep {

const char* inst_kind_name(InstKind kind) {
  switch (kind) {
    case InstKind::kAlu:
      return "alu";
    case InstKind::kBranch:
      return "branch";
    case InstKind::kMemory:
      return "memory";
    case InstKind::kBarrier:
      return "barrier";
    case InstKind::kMemBarrier:
      return "membar";
    case InstKind::kExit:
      return "exit";
    case InstKind::kDepBar:
      return "depbar";
    case InstKind::kLdgDepBar:
      return "ldgdepbar";
    case InstKind::kNop:
      return "nop";
  }
  return "?";
}

}  // namespace lockstep
