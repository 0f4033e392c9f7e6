#pragma once
// BlockChunk and KernelTable frames: the decoded BlockTrace / StaticTable form
// to and from compressed protobuf, packed as proto/trace.proto describes
// (BlockChunk: the chunk's warps stream by stream, warps that repeat an
// earlier warp's control flow stored as a reference to it, addresses
// predicted from the reference warp or from earlier instances).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/container/format.h"
#include "frontend/trace/block_trace.h"
#include "frontend/trace/dim3.h"
#include "frontend/trace/static_table.h"

namespace lockstep::proto {
class KernelTable;
}

namespace lockstep {

// What the index keeps about one thread block.
struct BlockInfo {
  Dim3 id{0, 0, 0};
  uint32_t warps = 0;
  uint64_t warp_insts = 0;  // the whole block's
  uint32_t segments = 1;     // segments the block is stored in
  bool operator==(const BlockInfo&) const = default;
};
using BlockSummary = BlockInfo;

struct EncodedChunk {
  std::string frame;  // LZ4 frame of a serialized BlockChunk
  uint32_t kernel_index = 0;
  uint32_t first_block = 0;  // ordinal of blocks[0] within the kernel
  uint32_t segment = 0;        // which segment of its blocks the chunk holds
  uint32_t segment_insts = 0;  // S of the segments (0: blocks whole)
  std::vector<BlockSummary> blocks;  // the whole blocks' summaries (the same in each segment's chunk)
  uint64_t warp_insts = 0;  // in this chunk
  uint64_t mem_insts = 0;     // warp-level memory instructions (mask 0 ones too)
  uint64_t thread_insts = 0;  // sum of active lanes over all instructions
  std::vector<uint64_t> static_counts;  // dynamic count per static id (table size at encode time)
};

// Pure; safe to call from several threads on one table, also while another
// thread interns into it (ids used by `blocks` must already be interned).
// Throws TraceError on a static id outside the table or addresses missing.
EncodedChunk encode_chunk(uint32_t kernel_index, uint32_t first_block, std::span<const BlockTrace> blocks,
                          const StaticTable& table);
// A group of consecutive blocks as the chunks of their segments (see
// proto/trace.proto): one chunk (encode_chunk) when no warp has more than
// `segment_insts` instructions or segment_insts is 0; else one chunk per
// segment, segment 0 first. Same guarantees as encode_chunk.
std::vector<EncodedChunk> encode_block_group(uint32_t kernel_index, uint32_t first_block,
                                             std::span<const BlockTrace> blocks, const StaticTable& table,
                                             uint32_t segment_insts);
// Segments `block` is stored in with S = `segment_insts` (1: whole).
uint32_t segments_of(const BlockTrace& block, uint32_t segment_insts);

// What decoding needs to know about a kernel table, computed once per table
// (a snapshot: entries interned later are outside it).
struct ChunkTableInfo {
  ChunkTableInfo() = default;
  explicit ChunkTableInfo(const StaticTable& table);
  uint32_t size = 0;                // table entries
  std::vector<uint32_t> mem_slot;   // per static id: 0 not memory, else 1 + index among memory entries
  uint32_t mem_entries = 0;
};

// Buffers and per-instruction state that decoding reuses from call to call.
// One per thread at a time; keeping one alive keeps decoding allocation-free.
class ChunkScratch {
 public:
  ChunkScratch();
  ~ChunkScratch();
  ChunkScratch(const ChunkScratch&) = delete;
  ChunkScratch& operator=(const ChunkScratch&) = delete;
  struct Impl;
  Impl& impl() { return *impl_; }
  std::string& frame_buffer();  // for the caller's compressed bytes

 private:
  std::unique_ptr<Impl> impl_;
};

// Decodes a chunk frame into `out` (resized to the chunk's blocks; the warps'
// vectors are reused). Validates everything against the table; throws
// TraceError(where + ": ...") on any inconsistency, never reads or writes out
// of bounds, and allocates no more than the decoded content needs. Returns the
// kernel index the chunk names. Thread-safe (the first form uses a
// thread-local scratch and builds the table info on each call).
// `block_limit`: decode only the chunk's first block_limit blocks (`out`
// holds at most that many); the stream past them is not read, so neither
// the bytes left unused nor the chunk's instruction count are checked (the
// frame's CRC and compression checksum still cover all of it).
uint32_t decode_chunk(std::string_view frame, const StaticTable& table, std::vector<BlockTrace>& out,
                      const std::string& where);
uint32_t decode_chunk(std::string_view frame, const ChunkTableInfo& table, std::vector<BlockTrace>& out,
                      const std::string& where, ChunkScratch& scratch, uint32_t block_limit = UINT32_MAX);

// KernelTable <-> StaticTable. The table is read once (size and opcode count
// snapshotted), so another thread may keep interning into it.
void encode_kernel_table(uint32_t kernel_index, const StaticTable& table, proto::KernelTable& out);
std::string encode_kernel_table_frame(uint32_t kernel_index, const StaticTable& table);
// Validates column lengths, opcode indices, registers and that no entry repeats.
StaticTable decode_kernel_table(const proto::KernelTable& msg, const std::string& where);
// Decompresses and parses a KernelTable frame. The first form checks it names
// `kernel_index`; the second stores the kernel it names in `*named` (several
// kernels with identical tables share one frame, which names one of them).
StaticTable decode_kernel_table_frame(std::string_view frame, uint32_t kernel_index, const std::string& where);
// `max_size` bounds the table's content (container::Limits::table_bytes) whatever the frame's size.
StaticTable decode_kernel_table_frame(std::string_view frame, const std::string& where, uint32_t* named,
                                      size_t max_size = container::Limits{}.table_bytes);

}  // namespace lockstep
