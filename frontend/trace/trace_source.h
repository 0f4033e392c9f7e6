#pragma once
// A trace as the rest of lockstep sees it, whatever its encoding: the manifest
// (kernels, memcpys), each kernel's static instructions, and its thread blocks
// streamed in order in the decoded form.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/trace/block_segments.h"
#include "frontend/trace/block_trace.h"
#include "frontend/trace/kernel_info.h"

namespace lockstep {

class BlockCursor {
 public:
  virtual ~BlockCursor() = default;
  // Overwrites `out` with the next block; false after the last one.
  virtual bool next(BlockTrace& out) = 0;
  // Opened for first segments (BlockParts::kFirstSegment): the blocks' later
  // segments; null when every block comes whole.
  virtual BlockSegments* segments() { return nullptr; }
};

// What a cursor hands out of a block stored in segments (BlockTrace).
enum class BlockParts { kWhole, kFirstSegment };

// Totals of one kernel: from the container's index, or by reading every block.
struct KernelSummary {
  uint64_t blocks = 0;
  uint64_t warps = 0;
  uint64_t warp_insts = 0;
  uint64_t mem_insts = 0;     // warp instructions with a memory width
  uint64_t thread_insts = 0;  // active lanes summed over all warp instructions
  std::vector<std::pair<std::string, uint64_t>> opcode_counts;  // by full opcode, table order
};

class TraceSource {
 public:
  virtual ~TraceSource() = default;
  virtual const TraceManifest& manifest() const = 0;
  // Kernel k's static instructions. For text sources the table grows while its
  // blocks are read; ids handed out stay valid.
  virtual const StaticTable& static_table(uint32_t kernel) = 0;
  // Blocks of kernel k, in trace order. One cursor per kernel at a time.
  virtual std::unique_ptr<BlockCursor> open_blocks(uint32_t kernel) = 0;
  // For a consumer that will take every block soon (the simulator), possibly
  // before it needs the first, and then `first_wave` blocks at once: a source
  // that can decode on a thread of its own starts at once and keeps that many
  // ready, so the blocks are there when wanted. Null when the source cannot
  // (then open_blocks when they are needed). With kFirstSegment, a block
  // stored in segments comes as its first one, the others from the cursor's
  // segments(), so that what a consumer holds of a block stays bounded.
  virtual std::unique_ptr<BlockCursor> open_blocks_ahead(uint32_t /*kernel*/, uint32_t /*first_wave*/,
                                                         BlockParts /*parts*/ = BlockParts::kWhole) {
    return nullptr;
  }
  // Kernel k's totals; the default reads every block.
  virtual KernelSummary summarize(uint32_t kernel);
  // Kernel k's warp instructions when the source knows them without reading
  // its blocks (a container's index); nullopt otherwise.
  virtual std::optional<uint64_t> indexed_warp_insts(uint32_t /*kernel*/) { return std::nullopt; }
  // What is missing from the kernels read so far when the trace was read with
  // PartialTraces::kAllow (see kernel_completeness.h), one line each; a
  // container carries what was found when it was converted.
  virtual std::vector<std::string> partial_trace() const { return {}; }
};

}  // namespace lockstep
