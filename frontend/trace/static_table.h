#pragma once
// The static instructions of one kernel: everything about an instruction that
// does not change between its dynamic executions (PC, opcode, registers, width,
// immediate, source line). Dynamic streams refer to entries by id.
#include <cstdint>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/trace/opcode_traits.h"
#include "frontend/trace/register_ref.h"

namespace lockstep {

// Version 6 lines end in "NoVal", or "Val" and the traced register values;
// the values are read and checked, not kept (nothing in the models uses them).
enum class ValueMarker : uint8_t { kNone = 0, kNoVal = 1, kValDropped = 2 };

struct StaticInstruction {
  uint64_t pc = 0;
  uint32_t opcode_id = 0;  // into StaticTable::opcode()
  std::vector<RegRef> dsts;
  std::vector<RegRef> srcs;
  uint32_t mem_width = 0;  // bytes per lane as traced; > 0 marks a memory instruction
  bool has_immediate = false;
  int64_t immediate = 0;
  bool has_line = false;
  uint32_t line = 0;
  // Tracer version 6 fields (Accel-Sim's trace_parser reads the same):
  bool has_imm2 = false;  // a second immediate after the first
  int64_t imm2 = 0;
  ValueMarker value_marker = ValueMarker::kNone;  // the register-value field at the line's end
  int8_t gmma_commit = -1;  // *GMMA: the commit-group flag after the sources (0 or 1); -1 none
  // A TMA/bulk copy (UTMALDG, UBLKCP, ...) whose line carried its transfer
  // list: read and checked, not kept (mem_width is then 0, as the tracers
  // before version 6 wrote these lines; the ISA times them as issue only).
  bool transfer_dropped = false;
  // Derived from the opcode when interned.
  OpcodeTraits traits;

  bool is_memory() const { return mem_width > 0; }
  // Bytes each active lane accesses: the opcode's size suffix, else the traced width.
  uint32_t access_bytes() const { return traits.access_bytes ? traits.access_bytes : (mem_width ? mem_width : 4); }
  bool same_static(const StaticInstruction& o) const {
    return pc == o.pc && opcode_id == o.opcode_id && dsts == o.dsts && srcs == o.srcs && mem_width == o.mem_width &&
           has_immediate == o.has_immediate && immediate == o.immediate && has_line == o.has_line && line == o.line &&
           has_imm2 == o.has_imm2 && imm2 == o.imm2 && value_marker == o.value_marker &&
           gmma_commit == o.gmma_commit && transfer_dropped == o.transfer_dropped;
  }
};

// Append-only. One thread may intern while others read entries whose ids they
// were handed (through a synchronising hand-off): entries live in fixed pages
// whose directory never reallocates, so existing entries never move.
class StaticTable {
 public:
  static constexpr uint32_t kPageSize = 1024;
  static constexpr uint32_t kMaxPages = 4096;  // 4 M static instructions per kernel

  StaticTable();
  StaticTable(const StaticTable&) = delete;
  StaticTable& operator=(const StaticTable&) = delete;
  // Moves are for tables no other thread is reading.
  StaticTable(StaticTable&& other) noexcept { *this = std::move(other); }
  StaticTable& operator=(StaticTable&& other) noexcept;

  uint32_t intern_opcode(std::string_view opcode);
  // Returns the id of an equal entry, adding `inst` if there is none.
  uint32_t intern(const StaticInstruction& inst);

  const StaticInstruction& inst(uint32_t id) const { return insts_[id / kPageSize][id % kPageSize]; }
  const std::string& opcode(uint32_t id) const { return opcodes_[id / kPageSize][id % kPageSize]; }
  const std::string& opcode_of(uint32_t inst_id) const { return opcode(inst(inst_id).opcode_id); }
  uint32_t size() const { return size_.load(std::memory_order_acquire); }
  uint32_t opcode_count() const { return opcode_count_.load(std::memory_order_acquire); }

 private:
  template <class T>
  using Pages = std::vector<std::unique_ptr<T[]>>;

  Pages<std::string> opcodes_;
  Pages<StaticInstruction> insts_;
  std::atomic<uint32_t> opcode_count_{0};
  std::atomic<uint32_t> size_{0};
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> opcode_ids_;  // writer only
  std::unordered_map<uint64_t, std::vector<uint32_t>> ids_by_pc_;  // writer only
};

// What a kernel's trace held that is read and not kept (version 6 register
// values; TMA/bulk-copy transfer lists), one line each naming `file`; empty
// when nothing was dropped.
std::vector<std::string> dropped_field_notes(const StaticTable& table, const std::string& file);

}  // namespace lockstep
