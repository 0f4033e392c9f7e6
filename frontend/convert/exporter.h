#pragma once
// Any trace -> Accel-Sim text (kernelslist.g + kernel-N.traceg), written into
// a temporary sibling directory and renamed to `dir` only when complete
// (frontend/io/output_directory.h: a symbolic link is followed).
#include <filesystem>

#include "frontend/trace/trace_source.h"

namespace lockstep {

struct ExportReport {
  uint32_t kernels = 0;
  uint64_t blocks = 0;
  uint64_t warp_insts = 0;
  uint64_t bytes = 0;
};

// `dir` must not exist or be an empty directory.
ExportReport export_text_trace(TraceSource& trace, const std::filesystem::path& dir);
// The checks export_text_trace makes of `dir` before writing, creating nothing.
void check_export_output(const std::filesystem::path& dir);

}  // namespace lockstep
