#pragma once
// A kernel's static instructions resolved for the timing model: unit class
// index, behaviour, scoreboard registers and memory properties. Built once per
// static instruction (the ISA def lookup happens here, never per dynamic
// instruction). For text traces the static table grows while blocks are read,
// so resolution is incremental.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frontend/isa/instruction_class.h"
#include "core/register_id.h"
#include "configs/spec/sm_spec.h"
#include "frontend/trace/static_table.h"

namespace lockstep {

inline constexpr uint16_t kNoUnit = 0xffff;

struct TimedInstruction {
  uint64_t pc = 0;
  uint16_t unit = 0;  // index into SmSpec::units; kNoUnit: needs no pipeline (fences); ignored for memory
  InstKind kind = InstKind::kAlu;
  MemSpace space = MemSpace::kNone;
  MemOp op = MemOp::kNone;
  uint8_t access_bytes = 4;
  bool has_addresses = false;  // the trace lists per-lane addresses (memory width > 0)
  uint8_t num_dsts = 0;
  uint8_t num_srcs = 0;
  int64_t immediate = 0;
  std::array<uint16_t, 8> dsts{};   // scoreboard indices, zero registers dropped
  std::array<uint16_t, 12> srcs{};
  // Extra cycles the operand collector takes reading the sources from the
  // SM's register banks (register_bank_conflict_cycles), once per static instruction.
  uint8_t bank_conflict_cycles = 0;
};

// The extra cycles reading `ti`'s sources from `banks` register banks takes:
// uniform and predicate registers are not in the vector banks, and an operand
// named twice is read once.
uint32_t register_bank_conflict_cycles(const TimedInstruction& ti, uint32_t banks);

// Resolves an opcode to (unit class name, kind); throws TraceError naming the opcode and `where`.
using OpcodeResolver = std::function<std::pair<std::string, InstKind>(const std::string& opcode, const std::string& where)>;

class KernelProgram {
 public:
  KernelProgram(const SmSpec& sm, OpcodeResolver resolve, std::string kernel_label);
  // Resolves every static instruction of `table` not resolved yet.
  void extend(const StaticTable& table);
  const TimedInstruction& operator[](uint32_t static_id) const { return insts_[static_id]; }
  uint32_t size() const { return uint32_t(insts_.size()); }

 private:
  const SmSpec& sm_;
  OpcodeResolver resolve_;
  std::string label_;
  std::string missing_unit_message(const std::string& opcode, const std::string& unit, bool declared) const;

  std::vector<TimedInstruction> insts_;
};

}  // namespace lockstep
