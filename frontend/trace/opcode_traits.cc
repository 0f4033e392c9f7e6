#include "frontend/trace/opcode_traits.h"

#include <array>
#include <utility>

namespace lockstep {
namespace {

struct BaseOpcode {
  std::string_view name;
  MemSpace space;
  MemOp op;
};

// Base mnemonics (text before the first '.') of SASS memory instructions.
constexpr std::array<BaseOpcode, 24> kMemoryOpcodes = {{
    {"LDG", MemSpace::kGlobal, MemOp::kLoad},
    {"STG", MemSpace::kGlobal, MemOp::kStore},
    {"ATOMG", MemSpace::kGlobal, MemOp::kAtomic},
    {"RED", MemSpace::kGlobal, MemOp::kReduction},
    {"REDG", MemSpace::kGlobal, MemOp::kReduction},
    {"LDL", MemSpace::kLocal, MemOp::kLoad},
    {"STL", MemSpace::kLocal, MemOp::kStore},
    {"LDS", MemSpace::kShared, MemOp::kLoad},
    {"LDSM", MemSpace::kShared, MemOp::kLoad},
    {"STS", MemSpace::kShared, MemOp::kStore},
    {"ATOMS", MemSpace::kShared, MemOp::kAtomic},
    {"REDS", MemSpace::kShared, MemOp::kReduction},
    {"LDC", MemSpace::kConst, MemOp::kLoad},
    {"ULDC", MemSpace::kConst, MemOp::kLoad},
    {"LD", MemSpace::kGeneric, MemOp::kLoad},
    {"ST", MemSpace::kGeneric, MemOp::kStore},
    {"ATOM", MemSpace::kGeneric, MemOp::kAtomic},
    {"LDGSTS", MemSpace::kGlobalToShared, MemOp::kLoad},
    {"TEX", MemSpace::kTexture, MemOp::kLoad},
    {"TLD", MemSpace::kTexture, MemOp::kLoad},
    {"TLD4", MemSpace::kTexture, MemOp::kLoad},
    {"TXQ", MemSpace::kTexture, MemOp::kLoad},
    {"SULD", MemSpace::kTexture, MemOp::kLoad},
    {"SUST", MemSpace::kTexture, MemOp::kStore},
}};

uint8_t size_from_suffix(std::string_view suffix) {
  if (suffix == "U8" || suffix == "S8") return 1;
  if (suffix == "U16" || suffix == "S16") return 2;
  if (suffix == "32" || suffix == "U32" || suffix == "S32") return 4;
  if (suffix == "64") return 8;
  if (suffix == "128") return 16;
  return 0;
}

}  // namespace

OpcodeTraits classify_opcode(std::string_view opcode) {
  OpcodeTraits traits;
  const size_t dot = opcode.find('.');
  const std::string_view base = opcode.substr(0, dot);
  for (const BaseOpcode& m : kMemoryOpcodes) {
    if (m.name == base) {
      traits.space = m.space;
      traits.op = m.op;
      break;
    }
  }
  // Size suffixes: the last size-like modifier wins (e.g. LDG.E.64.SYS -> 8).
  std::string_view rest = dot == std::string_view::npos ? std::string_view() : opcode.substr(dot + 1);
  while (!rest.empty()) {
    const size_t next = rest.find('.');
    const uint8_t size = size_from_suffix(rest.substr(0, next));
    if (size) traits.access_bytes = size;
    if (next == std::string_view::npos) break;
    rest = rest.substr(next + 1);
  }
  return traits;
}

const char* mem_space_name(MemSpace space) {
  switch (space) {
    case MemSpace::kNone: return "none";
    case MemSpace::kGlobal: return "global";
    case MemSpace::kLocal: return "local";
    case MemSpace::kShared: return "shared";
    case MemSpace::kConst: return "const";
    case MemSpace::kGeneric: return "generic";
    case MemSpace::kTexture: return "texture";
    case MemSpace::kGlobalToShared: return "global_to_shared";
  }
  return "?";
}

const char* mem_op_name(MemOp op) {
  switch (op) {
    case MemOp::kNone: return "none";
    case MemOp::kLoad: return "load";
    case MemOp::kStore: return "store";
    case MemOp::kAtomic: return "atomic";
    case MemOp::kReduction: return "reduction";
  }
  return "?";
}

}  // namespace lockstep
