#include "frontend/trace/trace_source.h"

#include <bit>

namespace lockstep {

KernelSummary TraceSource::summarize(uint32_t kernel) {
  KernelSummary s;
  std::vector<uint64_t> per_static;
  auto cursor = open_blocks(kernel);
  BlockTrace block;
  while (cursor->next(block)) {
    const StaticTable& table = static_table(kernel);
    per_static.resize(table.size());
    ++s.blocks;
    s.warps += block.warps.size();
    for (const WarpTrace& w : block.warps) {
      s.warp_insts += w.insts.size();
      for (const WarpInstruction& wi : w.insts) {
        ++per_static[wi.static_id];
        s.thread_insts += std::popcount(wi.active_mask);
      }
    }
  }
  const StaticTable& table = static_table(kernel);
  std::vector<uint64_t> per_opcode(table.opcode_count());
  for (uint32_t id = 0; id < per_static.size(); ++id) {
    per_opcode[table.inst(id).opcode_id] += per_static[id];
    if (table.inst(id).is_memory()) s.mem_insts += per_static[id];
  }
  for (uint32_t op = 0; op < per_opcode.size(); ++op) s.opcode_counts.emplace_back(table.opcode(op), per_opcode[op]);
  return s;
}

}  // namespace lockstep
