#pragma once
// Parses the text of one thread block (grouped "#BEGIN_TB ... #END_TB" body, or
// the tracer's raw prefixed lines collected for one block) into a BlockTrace.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "frontend/trace/block_trace.h"
#include "frontend/trace/kernel_info.h"

namespace lockstep {

struct BlockText {
  std::string text;         // the lines, '\n'-separated
  uint64_t first_line = 0;  // file line number of the first line (grouped form)
  bool numbered = false;    // raw form: every line starts with its file line number
  std::string label;        // when set, errors name this instead of the file (.tracez blocks)
};

// One instruction line, parsed. Reused across lines to avoid allocation.
struct ParsedLine {
  uint32_t block[3] = {0, 0, 0};  // from the "tb_x tb_y tb_z warp" prefix, when present
  uint32_t warp = 0;
  bool has_cluster = false;  // raw version 6 lines: the cluster fields after the warp
  ClusterPlace cluster;
  StaticInstruction st;
  uint32_t mask = 0;
  uint32_t num_addrs = 0;
  std::array<uint64_t, 32> addrs{};
};

// Throws TraceError("<file>:<line_no>: ...") on any malformed field.
void parse_instruction_line(std::string_view line, const KernelInfo& kernel, StaticTable& table, ParsedLine& out,
                            const std::string& file, uint64_t line_no);

// Appends nothing to `table` except new opcodes/static instructions; `out` is overwritten.
void parse_block_text(const BlockText& text, const KernelInfo& kernel, const std::string& file, StaticTable& table,
                      BlockTrace& out);

}  // namespace lockstep
