#pragma once
// Accel-Sim text trace -> lockstep container, streaming and in parallel.
//
// One oneTBB pipeline runs over all kernels in list order:
//   read   (serial)   block texts of the current kernel, a few hundred KB per item
//   parse  (parallel) text -> BlockTrace with an item-local static table
//   intern (serial)   local static ids -> the kernel's table; block ordinals
//   encode (parallel) BlockTrace -> LZ4-framed protobuf chunk
//   write  (serial)   append chunks in order; a kernel's table after its last chunk
// Blocks of consecutive kernels are in flight together, and memory is bounded
// by the items in flight, never by the size of a kernel file. The output is
// byte-identical for any --jobs.
#include <cstdint>
#include <filesystem>

#include "frontend/container/format.h"
#include "frontend/trace/kernel_completeness.h"
#include "frontend/trace/warnings.h"

namespace lockstep {

struct ConvertOptions {
  unsigned jobs = 0;                       // worker threads; 0 = all cores
  size_t chunk_text_bytes = size_t(1) << 20;  // text gathered per group of blocks
  // Blocks with a warp longer than this are stored in segments of this many
  // instructions per warp (0: every block whole), so that a simulator holds
  // a segment of each resident block rather than the whole block.
  uint32_t segment_insts = 256;
  size_t raw_group_budget = size_t(64) << 20;  // memory for grouping raw tracer output before spilling
  WarningHandler warn = print_warning;
  // A kernel that is not whole is an error, or with kAllow a warning recorded
  // in the container (kernel_completeness.h).
  PartialTraces partial = PartialTraces::kReject;
  // The container format to write (container::kOldestWritableVersion and up):
  // an older one for readers built before the current one.
  uint32_t format_version = container::kFormatVersion;
};

struct ConvertReport {
  uint32_t kernels = 0;
  uint64_t blocks = 0;
  uint64_t chunks = 0;
  uint64_t warp_insts = 0;
  uint64_t input_bytes = 0;   // size of the kernel files as stored (compressed if .xz)
  uint64_t output_bytes = 0;
  double seconds = 0;
};

// Writes `output` atomically (temporary file renamed on success).
ConvertReport convert_text_trace(const std::filesystem::path& input, const std::filesystem::path& output,
                                 const ConvertOptions& options = {});

}  // namespace lockstep
