#include "frontend/gen/program.h"

#include <algorithm>

namespace lockstep::gen {
namespace {

std::string_view by_width(uint32_t bytes, std::string_view b1, std::string_view b4, std::string_view b8,
                          std::string_view b16) {
  switch (bytes) {
    case 1: return b1;
    case 4: return b4;
    case 8: return b8;
    case 16: return b16;
  }
  throw std::logic_error("generator: no access of " + std::to_string(bytes) + " bytes");
}

std::vector<RegRef> regs(std::initializer_list<Reg> list) {
  std::vector<RegRef> out;
  out.reserve(list.size());
  for (Reg r : list) out.push_back(RegRef{RegKind::kR, r});
  return out;
}

}  // namespace

// Volta's disassembly spells out the .SYS scope and the .U (uniform address)
// shared loads; Ampere's drops both.
std::string_view Isa::ldg(uint32_t bytes) const {
  return ampere() ? by_width(bytes, "LDG.E.U8", "LDG.E", "LDG.E.64", "LDG.E.128")
                  : by_width(bytes, "LDG.E.U8.SYS", "LDG.E.SYS", "LDG.E.64.SYS", "LDG.E.128.SYS");
}
std::string_view Isa::stg(uint32_t bytes) const {
  return ampere() ? by_width(bytes, "STG.E.U8", "STG.E", "STG.E.64", "STG.E.128")
                  : by_width(bytes, "STG.E.U8.SYS", "STG.E.SYS", "STG.E.64.SYS", "STG.E.128.SYS");
}
std::string_view Isa::lds(uint32_t bytes) const {
  return ampere() ? by_width(bytes, "LDS.U8", "LDS", "LDS.64", "LDS.128")
                  : by_width(bytes, "LDS.U.U8", "LDS.U", "LDS.U.64", "LDS.U.128");
}
std::string_view Isa::sts(uint32_t bytes) const {
  return by_width(bytes, "STS.U8", "STS", "STS.64", "STS.128");
}

uint32_t Program::op(std::string_view opcode, std::initializer_list<Reg> dsts, std::initializer_list<Reg> srcs,
                     int64_t imm) {
  if (finalized_) throw std::logic_error("generator: program already finalized");
  StaticInstruction s;
  s.pc = pc(here());
  s.opcode_id = table_.intern_opcode(opcode);
  s.dsts = regs(dsts);
  s.srcs = regs(srcs);
  s.has_immediate = true;
  s.immediate = imm;
  insts_.push_back(std::move(s));
  branch_target_.push_back(~0u);
  mem_flags_.push_back(0);
  return here() - 1;
}

uint32_t Program::mem(std::string_view opcode, std::initializer_list<Reg> dsts, std::initializer_list<Reg> srcs,
                      uint32_t width, int64_t imm) {
  if (width == 0) throw std::logic_error("generator: memory instruction without a width");
  const uint32_t i = op(opcode, dsts, srcs, imm);
  insts_[i].mem_width = width;
  mem_flags_[i] = 1;
  return i;
}

uint32_t Program::bra(uint32_t target) {
  const uint32_t i = op("BRA", {}, {});
  branch_target_[i] = target;
  return i;
}

uint32_t Program::bra_forward() {
  const uint32_t i = op("BRA", {}, {});
  pending_.push_back(i);
  return i;
}

void Program::land(uint32_t branch) {
  auto it = std::find(pending_.begin(), pending_.end(), branch);
  if (it == pending_.end()) throw std::logic_error("generator: landing a branch that is not pending");
  pending_.erase(it);
  branch_target_[branch] = here();
}

uint32_t Program::mov_param(Reg dst) {
  return isa_.ampere() ? op("IMAD.MOV.U32", {dst}, {RZ, RZ}) : op("MOV", {dst}, {});
}

uint32_t Program::mov_imm(Reg dst, int64_t imm) {
  return isa_.ampere() ? op("IMAD.MOV.U32", {dst}, {RZ, RZ}, imm) : op("MOV", {dst}, {}, imm);
}

void Program::finalize() {
  if (finalized_) return;
  if (!pending_.empty()) throw std::logic_error("generator: forward branch never landed");
  for (uint32_t i = 0; i < insts_.size(); ++i) {
    // Branch immediates carry the target PC, as the tracer records them.
    if (branch_target_[i] != ~0u) insts_[i].immediate = int64_t(pc(branch_target_[i]));
    if (table_.intern(insts_[i]) != i) throw std::logic_error("generator: static ids out of order");
  }
  finalized_ = true;
}

uint32_t Program::nregs() const {
  uint32_t top = 0;
  for (const StaticInstruction& s : insts_) {
    for (const RegRef& r : s.dsts)
      if (!r.is_zero()) top = std::max<uint32_t>(top, r.num);
    for (const RegRef& r : s.srcs)
      if (!r.is_zero()) top = std::max<uint32_t>(top, r.num);
  }
  return std::min<uint32_t>(top + 3, 255);
}

}  // namespace lockstep::gen
