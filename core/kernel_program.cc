#include "core/kernel_program.h"

#include <algorithm>
#include <cstdio>

#include "frontend/trace/trace_error.h"

namespace lockstep {

KernelProgram::KernelProgram(const SmSpec& sm, OpcodeResolver resolve, std::string kernel_label)
    : sm_(sm), resolve_(std::move(resolve)), label_(std::move(kernel_label)) {}

// The error for an opcode whose unit class the config lacks, with the --set
// lines that fix it: declare the class, or map the opcode to a declared one.
std::string KernelProgram::missing_unit_message(const std::string& opcode, const std::string& unit,
                                                bool declared) const {
  std::string units;
  for (const UnitSpec& u : sm_.units) units += (units.empty() ? "" : ",") + u.name;
  const std::string mnemonic = opcode.substr(0, opcode.find('.'));
  const std::string remap = "or run the opcode on a declared class: --set isa.extra=" + mnemonic + ":CLASS (CLASS one of " +
                            units + ")";
  if (declared)
    return "opcode '" + opcode + "' maps to unit class '" + unit + "', which has no pipelines (unit." + unit +
           ".per_subcore = 0); --set unit." + unit + ".per_subcore=1, " + remap;
  std::string fix = "opcode '" + opcode + "' maps to unit class '" + unit +
                    "', which this GPU config does not declare (sm.units); declare it: --set sm.units=" + units + "," +
                    unit + " (a newer trace on an older GPU";
  if (unit == "UNIFORM") fix += "; or --config configs/presets/uniform-unit.cfg after --gpu";
  return fix + "), " + remap;
}

void KernelProgram::extend(const StaticTable& table) {
  const uint32_t n = table.size();
  for (uint32_t id = uint32_t(insts_.size()); id < n; ++id) {
    const StaticInstruction& st = table.inst(id);
    const std::string& opcode = table.opcode(st.opcode_id);
    char pc[32];
    std::snprintf(pc, sizeof pc, "PC 0x%04llx", (unsigned long long)st.pc);
    const std::string where = label_ + " " + pc;
    auto [unit_name, kind] = resolve_(opcode, where);
    TimedInstruction t;
    t.pc = st.pc;
    t.kind = kind;
    if (st.is_memory() && kind == InstKind::kAlu) t.kind = InstKind::kMemory;  // the trace says it has addresses
    // "MEM" names the LD/ST path: memory instructions go there; fences and
    // dependency barriers are handled by the warp and need no pipeline.
    if (unit_name == "MEM" && t.kind != InstKind::kMemory) {
      t.unit = kNoUnit;
    } else if (t.kind != InstKind::kMemory) {
      bool found = false, declared = false;
      for (size_t u = 0; u < sm_.units.size(); ++u)
        if (sm_.units[u].name == unit_name) {
          t.unit = uint16_t(u);
          declared = true;
          found = sm_.units[u].per_subcore > 0;
          break;
        }
      const bool control = kind == InstKind::kBranch || kind == InstKind::kExit || kind == InstKind::kBarrier;
      if (!found && control) {
        t.unit = kNoUnit;  // no BRANCH class declared: sm.branch_latency applies
        found = true;
      }
      if (!found) throw TraceError(where + ": " + missing_unit_message(opcode, unit_name, declared));
    }
    t.space = st.traits.space;
    t.op = st.traits.op;
    t.access_bytes = uint8_t(st.access_bytes());
    t.has_addresses = st.is_memory();
    t.immediate = st.has_immediate ? st.immediate : 0;
    for (const RegRef& r : st.dsts) {
      const uint16_t i = scoreboard_index(r);
      if (i != kNoRegister && t.num_dsts < t.dsts.size()) t.dsts[t.num_dsts++] = i;
    }
    for (const RegRef& r : st.srcs) {
      const uint16_t i = scoreboard_index(r);
      if (i != kNoRegister && t.num_srcs < t.srcs.size()) t.srcs[t.num_srcs++] = i;
    }
    t.bank_conflict_cycles = uint8_t(register_bank_conflict_cycles(t, std::clamp(sm_.reg_banks, 1u, 64u)));
    insts_.push_back(t);
  }
}

uint32_t register_bank_conflict_cycles(const TimedInstruction& ti, uint32_t banks) {
  uint8_t reads[64] = {};
  uint32_t worst = 0;
  for (uint32_t i = 0; i < ti.num_srcs; ++i) {
    if (ti.srcs[i] >= 256) continue;
    bool repeat = false;
    for (uint32_t j = 0; j < i; ++j) repeat |= ti.srcs[j] == ti.srcs[i];
    if (!repeat) worst = std::max<uint32_t>(worst, ++reads[ti.srcs[i] % banks]);
  }
  return worst > 1 ? worst - 1 : 0;
}

}  // namespace lockstep
