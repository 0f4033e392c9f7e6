#pragma once
// One kernel's index of chunks and blocks: where each chunk's frame is, which
// blocks and which segment it holds, and each block's id, warps, instructions
// and segments. Format versions 1 and 2 keep it in the footer (KernelIndex),
// version 3 in a KernelBlocks frame per kernel (proto/trace.proto) that a
// reader loads when it reads the kernel's blocks and drops after.
// KernelBlocksBuilder builds the columns as a writer adds chunks (a few bytes
// a block); decode_kernel_block_index reads them back into what the reader
// checks (KernelBlockIndex::check_and_group) and keeps, its blocks packed.
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/container/byte_streams.h"
#include "frontend/container/chunk_codec.h"
#include "frontend/container/packed_blocks.h"

namespace lockstep::proto {
class KernelBlocks;
}

namespace lockstep {

struct ChunkInfo {
  uint64_t offset = 0;
  uint32_t size = 0;  // compressed bytes
  uint32_t crc = 0;
  uint32_t first_block = 0;  // ordinal of the chunk's first block in the kernel
  uint32_t num_blocks = 0;
  uint64_t warp_insts = 0;  // in this chunk
  uint32_t segment = 0;     // which segment of its blocks it holds
  uint32_t segments = 0;    // a group's first chunk: the chunks of its group (1 + its further segments)
};

// The rows as stored, one struct each (the writer, format 2's footer, tests).
struct KernelBlockRows {
  std::vector<ChunkInfo> chunks;
  std::vector<BlockInfo> blocks;
};

struct KernelBlockIndex {
  KernelBlockIndex() = default;
  explicit KernelBlockIndex(KernelBlockRows&& rows);
  std::vector<ChunkInfo> chunks;
  std::vector<uint32_t> groups;  // each group's first chunk
  PackedBlocks blocks;

  // Checks the rows against each other (chunks in block order, a group's
  // further segments right after its first chunk, as many as its longest
  // block has segments; instruction counts per group and in total against
  // `warp_insts`; blocks' segments against `segment_insts`), then sets
  // `groups` and each group's first chunk's `segments`. Frame references are
  // the caller's to check. Returns the warps of all its blocks. Throws
  // TraceError(kernel_where + ...), where kernel_where names the kernel
  // ("<path>: kernel K").
  uint64_t check_and_group(uint32_t segment_insts, uint64_t warp_insts, const std::string& kernel_where);
  // The group holding block `ordinal` (< blocks.size()).
  uint32_t group_of_block(uint32_t ordinal) const;
};

class KernelBlocksBuilder {
 public:
  void add_chunk(uint64_t offset, uint32_t size, uint32_t crc, uint32_t num_blocks, uint64_t warp_insts,
                 uint32_t segment);
  void add_block(const BlockInfo& b);
  uint32_t chunk_count() const { return chunks_; }
  uint32_t block_count() const { return blocks_; }
  uint64_t warps() const { return warps_; }
  // Moves the columns into `out`; the builder is empty after.
  void finish(uint32_t kernel_index, proto::KernelBlocks& out);

 private:
  uint32_t chunks_ = 0, blocks_ = 0;
  uint64_t warps_ = 0;
  uint64_t prev_end_ = 0;
  Dim3 prev_id_{0, 0, 0};
  ByteSink offsets_, sizes_, crcs_, chunk_blocks_, chunk_insts_, chunk_segments_;
  ByteSink ids_, warps_col_, insts_, segments_;
};

// The rows of a KernelBlocks message (each chunk's first_block derived from
// the order; for the index, `groups` and `segments` not yet set:
// check_and_group). Throws TraceError(where + ": ...") on a column that is
// short, long or malformed.
KernelBlockRows decode_kernel_block_rows(const proto::KernelBlocks& msg, const std::string& where);
KernelBlockIndex decode_kernel_block_index(const proto::KernelBlocks& msg, const std::string& where);

}  // namespace lockstep
