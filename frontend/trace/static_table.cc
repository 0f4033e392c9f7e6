#include "frontend/trace/static_table.h"

#include "frontend/trace/trace_error.h"

namespace lockstep {

StaticTable::StaticTable() {
  opcodes_.reserve(kMaxPages);
  insts_.reserve(kMaxPages);
}

StaticTable& StaticTable::operator=(StaticTable&& other) noexcept {
  opcodes_ = std::move(other.opcodes_);
  insts_ = std::move(other.insts_);
  opcode_ids_ = std::move(other.opcode_ids_);
  ids_by_pc_ = std::move(other.ids_by_pc_);
  opcode_count_.store(other.opcode_count_.exchange(0));
  size_.store(other.size_.exchange(0));
  other.opcodes_.reserve(kMaxPages);
  other.insts_.reserve(kMaxPages);
  return *this;
}

uint32_t StaticTable::intern_opcode(std::string_view opcode) {
  auto it = opcode_ids_.find(opcode);
  if (it != opcode_ids_.end()) return it->second;
  const uint32_t id = opcode_count_.load(std::memory_order_relaxed);
  if (id / kPageSize >= kMaxPages) throw TraceError("more than 4 M distinct opcodes in one kernel");
  if (id % kPageSize == 0) opcodes_.push_back(std::make_unique<std::string[]>(kPageSize));
  opcodes_[id / kPageSize][id % kPageSize] = std::string(opcode);
  opcode_ids_.emplace(std::string(opcode), id);
  opcode_count_.store(id + 1, std::memory_order_release);
  return id;
}

uint32_t StaticTable::intern(const StaticInstruction& in) {
  std::vector<uint32_t>& same_pc = ids_by_pc_[in.pc];
  for (uint32_t id : same_pc)
    if (inst(id).same_static(in)) return id;
  const uint32_t id = size_.load(std::memory_order_relaxed);
  if (id / kPageSize >= kMaxPages) throw TraceError("more than 4 M static instructions in one kernel");
  if (in.opcode_id >= opcode_count()) throw TraceError("static instruction names an opcode id that is not interned");
  if (id % kPageSize == 0) insts_.push_back(std::make_unique<StaticInstruction[]>(kPageSize));
  StaticInstruction& slot = insts_[id / kPageSize][id % kPageSize];
  slot = in;
  slot.traits = classify_opcode(opcode(in.opcode_id));
  same_pc.push_back(id);
  size_.store(id + 1, std::memory_order_release);
  return id;
}

std::vector<std::string> dropped_field_notes(const StaticTable& table, const std::string& file) {
  uint32_t transfers = 0, values = 0;
  for (uint32_t i = 0, n = table.size(); i < n; ++i) {
    const StaticInstruction& st = table.inst(i);
    transfers += st.transfer_dropped;
    values += st.value_marker == ValueMarker::kValDropped;
  }
  std::vector<std::string> notes;
  if (transfers)
    notes.push_back(file + ": " + std::to_string(transfers) +
                    " static TMA/bulk-copy instruction(s) list their transfers; the lists are not simulated (these "
                    "instructions are timed as issue only, as the ISA file says)");
  if (values)
    notes.push_back(file + ": " + std::to_string(values) +
                    " static instruction(s) carry traced register values (Val); the values are not kept");
  return notes;
}

}  // namespace lockstep
