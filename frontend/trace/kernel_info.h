#pragma once
// What a trace says about its kernels and memcpys: the kernelslist and every
// kernel header. Trace side only; no timing model here.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/trace/dim3.h"

namespace lockstep {

struct KernelInfo {
  uint32_t kernel_id = 0;
  std::string name;
  Dim3 grid;
  Dim3 block;
  uint32_t shmem_bytes = 0;
  uint32_t nregs = 0;
  uint32_t binary_version = 0;  // e.g. 70 for sm_70
  // As the tracer prints it (often pointer-derived: negative or wider than 32
  // bits), taken as a 64-bit pattern; only equality matters. The text stays
  // verbatim in header_fields.
  uint64_t cuda_stream_id = 0;
  uint64_t shmem_base = 0;
  uint64_t local_base = 0;
  std::string nvbit_version;
  uint32_t tracer_version = 0;  // 0: older than version 3 (no version header)
  bool lineinfo = false;        // lines start with a source line number
  // Every "-key = value" line of the header, in file order, unknown keys too.
  std::vector<std::pair<std::string, std::string>> header_fields;
  std::string format_comment;  // "#traces format = ..." as read, if any
  std::string source_file;     // as named in the kernelslist
  bool raw_tracer_output = false;  // ungrouped kernel-N.trace

  uint64_t threads_per_block() const { return block.volume(); }
  // Saturated at UINT32_MAX (a block that large fits no SM: its launch says so).
  uint32_t warps_per_block() const {
    const uint64_t t = threads_per_block();
    return uint32_t(std::min<uint64_t>(t / 32 + (t % 32 != 0), UINT32_MAX));
  }
  // The value of header line `key` as read, or null.
  const std::string* header_field(std::string_view key) const {
    for (const auto& [k, v] : header_fields)
      if (k == key) return &v;
    return nullptr;
  }
  // Lines carry a "tb_x tb_y tb_z warp" prefix (tracer < 3 or raw output).
  bool lines_prefixed() const { return tracer_version < 3 || raw_tracer_output; }
  // Lines end with an immediate operand (tracer >= 5).
  bool has_immediate_field() const { return tracer_version >= 5; }
  // Version 6: GMMA commit-group flags, a second immediate, register values, cluster lines.
  bool has_v6_fields() const { return tracer_version >= 6; }
};

struct MemcpyHtoD {
  uint64_t address = 0;
  uint64_t bytes = 0;
  bool operator==(const MemcpyHtoD&) const = default;
};

// One line of the kernelslist: a memcpy or a kernel launch, in program order.
struct TraceCommand {
  enum class Kind { kMemcpy, kKernel };
  Kind kind = Kind::kKernel;
  MemcpyHtoD memcpy;
  uint32_t kernel_index = 0;  // into TraceManifest::kernels
};

struct TraceManifest {
  std::string source;
  std::vector<KernelInfo> kernels;
  std::vector<TraceCommand> commands;
};

}  // namespace lockstep
