#pragma once
// Whether a kernel's trace is whole: every thread block of the grid exactly
// once, every block with all its warps, every warp with an EXIT (normally its
// last instruction; instructions after a full-mask EXIT are the simulator's
// business, not a sign of a cut trace). A .traceg
// cut at a block boundary, or raw tracer output cut mid-kernel, parses cleanly
// and is still short; this is what finds it.
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/trace/block_trace.h"
#include "frontend/trace/kernel_info.h"
#include "frontend/trace/warnings.h"

namespace lockstep {

class KernelCompleteness {
 public:
  // `file` names the kernel's trace in the findings.
  KernelCompleteness(const KernelInfo& kernel, std::string file);

  // Every block of the kernel, in trace order; `table` resolves its static ids.
  void add(const BlockTrace& block, const StaticTable& table);
  // What is missing or repeated, one line per kind, each naming the file and
  // the first instance ("F: 186 of 196 thread blocks missing (the first (10,0,0))");
  // empty when the trace is whole.
  std::vector<std::string> findings();

 private:
  void note_short_block(const BlockTrace& block);
  bool has_exit(const WarpTrace& warp, const StaticTable& table);

  Dim3 grid_;
  uint32_t warps_per_block_;
  std::string file_;
  std::vector<uint64_t> blocks_;  // linear ids as met
  std::vector<int8_t> exit_by_static_;  // per static id: 1 EXIT, 0 not, -1 not looked at yet
  uint64_t short_blocks_ = 0;
  std::string first_short_block_;
  uint64_t warps_without_exit_ = 0;
  std::string first_warp_without_exit_;
};

// What a reader does with a trace that is not whole.
enum class PartialTraces {
  kReject,  // an error (the default)
  kAllow,   // --allow-partial: a warning each, and the findings are recorded
};

// With kReject and findings, throws one TraceError listing them; with kAllow
// passes each to `warn`. Returns the findings.
std::vector<std::string> check_partial(std::vector<std::string> findings, PartialTraces policy,
                                       const WarningHandler& warn);

}  // namespace lockstep
