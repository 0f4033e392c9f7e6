#pragma once
// Building blocks of the synthetic workloads: a static SASS program laid out
// at increasing PCs (0x10 apart) and interned into one StaticTable per kernel,
// and a WarpWriter that appends one warp's dynamic instructions (static id,
// active mask, per-lane addresses) to a WarpTrace, or only counts them when
// a workload sizes itself.
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/trace/block_trace.h"
#include "frontend/trace/static_table.h"

namespace lockstep::gen {

using Reg = uint16_t;
constexpr Reg RZ = 255;  // the zero register
constexpr uint32_t kFullMask = 0xffffffffu;

// Lanes [0, n) of a warp.
constexpr uint32_t lanes_below(uint32_t n) { return n >= 32 ? kFullMask : (1u << n) - 1; }

// Opcode spellings that differ between the generations generated for.
class Isa {
 public:
  explicit Isa(uint32_t sm) : sm_(sm) {}
  uint32_t sm() const { return sm_; }
  bool ampere() const { return sm_ >= 80; }
  // Global/shared loads and stores of 1, 4, 8 or 16 bytes per lane.
  std::string_view ldg(uint32_t bytes) const;
  std::string_view stg(uint32_t bytes) const;
  std::string_view lds(uint32_t bytes) const;
  std::string_view sts(uint32_t bytes) const;
  // atomicAdd(float*, float) with the result unused, and atomicAdd(unsigned*, unsigned) with it used.
  std::string_view red_add_f32() const { return "RED.E.ADD.F32.FTZ.RN.STRONG.GPU"; }
  std::string_view atomg_add_u32() const { return "ATOMG.E.ADD.STRONG.GPU"; }

 private:
  uint32_t sm_;
};

class Program {
 public:
  explicit Program(uint32_t sm) : isa_(sm) {}
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  const Isa& isa() const { return isa_; }

  // Appends an instruction at the next PC and returns its index, which is its
  // static id once finalize() has run. `imm` is the trailing immediate field.
  uint32_t op(std::string_view opcode, std::initializer_list<Reg> dsts, std::initializer_list<Reg> srcs,
              int64_t imm = 0);
  // A memory instruction: `width` bytes per lane (> 0).
  uint32_t mem(std::string_view opcode, std::initializer_list<Reg> dsts, std::initializer_list<Reg> srcs,
               uint32_t width, int64_t imm = 0);
  uint32_t ld(std::string_view opcode, Reg dst, Reg addr, uint32_t width, int64_t imm = 0) {
    return mem(opcode, {dst}, {addr}, width, imm);
  }
  uint32_t st(std::string_view opcode, Reg addr, Reg value, uint32_t width, int64_t imm = 0) {
    return mem(opcode, {}, {addr, value}, width, imm);
  }
  // Branch to an instruction already placed (a loop back edge).
  uint32_t bra(uint32_t target);
  // Branch to an instruction not placed yet; resolve with land().
  uint32_t bra_forward();
  // Resolves a forward branch (or CALL) to the next instruction to be placed.
  void land(uint32_t branch);
  uint32_t call_forward() {
    const uint32_t i = op("CALL.REL.NOINC", {}, {});
    pending_.push_back(i);
    return i;
  }
  uint32_t exit() { return op("EXIT", {}, {}); }

  // Common idioms whose spelling differs between generations.
  // A kernel parameter / special constant (c[0x0][...]) into a register.
  uint32_t mov_param(Reg dst);
  // A small immediate into a register.
  uint32_t mov_imm(Reg dst, int64_t imm);

  uint32_t here() const { return uint32_t(insts_.size()); }
  static uint64_t pc(uint32_t index) { return uint64_t(index) * 0x10; }

  // Interns every instruction into the table; ids equal indices.
  void finalize();
  const StaticTable& table() const { return table_; }
  uint32_t size() const { return uint32_t(insts_.size()); }
  bool is_mem(uint32_t id) const { return insts_[id].mem_width > 0; }
  // Registers per thread as ptxas would report: highest register + 1, plus 2.
  uint32_t nregs() const;
  const std::vector<uint8_t>& mem_flags() const { return mem_flags_; }

 private:
  Isa isa_;
  std::vector<StaticInstruction> insts_;
  std::vector<uint32_t> branch_target_;  // per instruction: target index, or ~0u
  std::vector<uint32_t> pending_;        // forward branches not yet landed
  std::vector<uint8_t> mem_flags_;
  StaticTable table_;
  bool finalized_ = false;
};

// Appends the dynamic instructions of one warp. Constructed without a WarpTrace
// it only counts, so a workload can size itself with the code that emits it.
class WarpWriter {
 public:
  WarpWriter(const Program& program, WarpTrace* warp) : mem_(program.mem_flags().data()), n_(program.size()), w_(warp) {}

  void op(uint32_t id, uint32_t mask) {
    check(id, false);
    ++count_;
    if (w_) w_->push(id, mask);
  }
  // The non-memory instructions [first, end), in order, under one mask.
  void run(uint32_t first, uint32_t end, uint32_t mask) {
    for (uint32_t id = first; id < end; ++id) op(id, mask);
  }
  // A memory instruction; lane_addr(lane) gives the address of each active lane.
  template <class F>
  void mem(uint32_t id, uint32_t mask, F&& lane_addr) {
    check(id, true);
    ++count_;
    if (!w_) return;
    LaneBuffer lanes;
    uint32_t n = 0;
    for (uint32_t m = mask; m; m &= m - 1) lanes[n++] = lane_addr(uint32_t(std::countr_zero(m)));
    w_->push(id, mask, std::span<const uint64_t>(lanes.data(), n));
  }
  // Lane l accesses base + l * stride.
  void mem_lin(uint32_t id, uint32_t mask, uint64_t base, int64_t stride) {
    mem(id, mask, [&](uint32_t lane) { return base + uint64_t(int64_t(lane) * stride); });
  }
  uint64_t count() const { return count_; }

 private:
  void check(uint32_t id, bool memory) const {
    if (id >= n_ || bool(mem_[id]) != memory)
      throw std::logic_error("generator: instruction " + std::to_string(id) +
                             (memory ? " emitted as a memory access" : " emitted without addresses"));
  }
  const uint8_t* mem_;
  uint32_t n_;
  WarpTrace* w_;
  uint64_t count_ = 0;
};

}  // namespace lockstep::gen
