#include "frontend/trace/static_table.h"

namespace lockstep {

uint32_t StaticTable::intern_opcode(std::string_view opcode) {
  auto it = opcode_ids_.find(opcode);
  if (it != opcode_ids_.end()) return it->second;
  const uint32_t id = uint32_t(opcodes_.size());
  opcodes_.emplace_back(opcode);
  opcode_ids_.emplace(opcodes_.back(), id);
  return id;
}

uint32_t StaticTable::intern(const StaticInstruction& inst) {
  std::vector<uint32_t>& same_pc = ids_by_pc_[inst.pc];
  for (uint32_t id : same_pc)
    if (insts_[id].same_static(inst)) return id;
  const uint32_t id = uint32_t(insts_.size());
  insts_.push_back(inst);
  insts_.back().traits = classify_opcode(opcodes_.at(inst.opcode_id));
  same_pc.push_back(id);
  return id;
}

}  // namespace lockstep
