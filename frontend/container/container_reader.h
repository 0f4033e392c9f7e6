#pragma once
// Reads a .lst container (layout in proto/trace.proto). Opening validates the
// head, the tail, the footer (CRC, every frame reference inside the data
// region) and the header; kernel tables are loaded lazily, once per table
// frame (kernels with identical tables share one); chunk frames are checked
// (CRC, LZ4 checksums, protobuf, consistency with the table and the index)
// whenever they are read.
// A kernel's index of chunks and blocks (block_index) comes, in format
// version 3, from a frame of its own, read and checked (frame references,
// block counts matching the chunks, totals matching the footer) when the
// kernel's blocks are first read. It stays while anyone holds it, and the
// two loaded last stay besides, so that opening a trace and reading it
// kernel by kernel holds the indexes of about two kernels, whatever the
// trace's length. Versions 1 and 2 keep every kernel's index in the footer:
// it is checked when the file is opened and kept.
//
// All const members are thread-safe: frames are read with pread().
// Errors: TraceError("<path>: <what>"), for chunks "<path>: kernel K chunk C: <what>".
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "frontend/container/block_index.h"
#include "frontend/container/chunk_codec.h"
#include "frontend/container/format.h"
#include "frontend/trace/block_trace.h"
#include "frontend/trace/kernel_info.h"
#include "frontend/trace/static_table.h"

namespace lockstep {

struct KernelTotals {
  uint64_t warp_insts = 0;
  uint64_t mem_insts = 0;
  uint64_t thread_insts = 0;
  uint64_t warps = 0;  // over all the kernel's blocks
  std::vector<uint64_t> opcode_counts;  // by opcode id of kernel_table(k)
};

class ContainerReader {
 public:
  explicit ContainerReader(std::filesystem::path path, container::Limits limits = {});
  ~ContainerReader();
  ContainerReader(const ContainerReader&) = delete;
  ContainerReader& operator=(const ContainerReader&) = delete;

  const std::filesystem::path& path() const { return path_; }
  uint64_t file_size() const { return file_size_; }
  uint32_t format_version() const { return format_version_; }
  const std::string& producer() const { return producer_; }
  const TraceManifest& manifest() const { return manifest_; }
  uint32_t kernel_count() const { return uint32_t(kernels_.size()); }

  // Loaded (and validated) on first use; the reference stays valid.
  const StaticTable& kernel_table(uint32_t k) const;
  // From the footer: no block index is read.
  uint32_t block_count(uint32_t k) const { return kernel(k).num_blocks; }
  uint32_t chunk_count(uint32_t k) const { return kernel(k).num_chunks; }
  // Kernel k's chunks and blocks, loaded and checked on first use (above).
  // Hold the pointer while using its rows.
  std::shared_ptr<const KernelBlockIndex> block_index(uint32_t k) const;
  // Index of the chunk holding block `ordinal` of kernel k (its first segment).
  uint32_t chunk_of_block(uint32_t k, uint32_t ordinal) const;
  // Index of the group holding block `ordinal` of kernel k.
  uint32_t group_of_block(uint32_t k, uint32_t ordinal) const;
  // Per-warp instructions per segment of kernel k's blocks (0: blocks whole).
  uint32_t segment_insts(uint32_t k) const { return kernel(k).segment_insts; }
  // Groups of blocks: a group's first chunk holds their first segments, the
  // chunks after it their further segments (a group of whole blocks is one
  // chunk); KernelBlockIndex::groups lists each group's first chunk.
  uint32_t group_count(uint32_t k) const { return uint32_t(block_index(k)->groups.size()); }

  // Decodes chunk c of kernel k into `out` (resized; inner vectors reused):
  // the blocks, or for a segment chunk their segments (each BlockTrace's
  // ordinal, segment and segments set). The first form decodes with a
  // thread-local scratch.
  void read_chunk(uint32_t k, uint32_t c, std::vector<BlockTrace>& out) const;
  // `block_limit`: only the chunk's first block_limit blocks (decode_chunk).
  void read_chunk(uint32_t k, uint32_t c, std::vector<BlockTrace>& out, ChunkScratch& scratch,
                  uint32_t block_limit = UINT32_MAX) const;
  // Group g's blocks: whole (every segment read and joined), or their first segments.
  enum class Parts { kWhole, kFirstSegment };
  void read_group(uint32_t k, uint32_t g, std::vector<BlockTrace>& out, ChunkScratch& scratch, Parts parts) const;
  // Decodes the chunk holding segment `segment` of block `ordinal` (and of
  // the rest of its group, up to block `through` when that is >= ordinal:
  // the later blocks' parts are not decoded) into `out`; returns the group's
  // first block.
  uint32_t read_segment(uint32_t k, uint32_t ordinal, uint32_t segment, std::vector<BlockTrace>& out,
                        ChunkScratch& scratch, uint32_t through = UINT32_MAX) const;
  // The blocks of the group holding block `ordinal` of kernel k: [first, end).
  std::pair<uint32_t, uint32_t> group_blocks(uint32_t k, uint32_t ordinal) const;
  // Decodes the blocks' group and returns block `ordinal`, whole.
  BlockTrace read_block(uint32_t k, uint32_t ordinal) const;
  // Reads every kernel table and every chunk: each frame's CRC, its
  // compression checksum, its decoding and its agreement with the index and
  // the table. Returns the number of chunks read; throws on the first fault.
  uint64_t check_every_frame() const;
  // What the text trace lacked, for a container converted with --allow-partial (all kernels, in order).
  std::vector<std::string> partial_trace() const;
  // The same for kernel k alone.
  const std::vector<std::string>& partial_trace(uint32_t k) const { return kernel(k).partial_trace; }
  // Totals from the index; loads the kernel table to check the opcode counts against it.
  const KernelTotals& totals(uint32_t k) const;

  // Decoding storage that a BlockStream takes when it starts and gives back
  // when it ends, so that the next stream of this reader starts with warm
  // buffers instead of allocating afresh: per decoding thread (0 the helper,
  // 1 the consumer) a scratch and the chunks' vectors it decodes into, kept
  // apart so that what one thread's decoding sets aside it also reuses.
  struct StreamStorage {
    ChunkScratch scratch[2];
    std::vector<std::vector<BlockTrace>> chunks[2];
  };
  std::unique_ptr<StreamStorage> take_stream_storage() const;
  void give_stream_storage(std::unique_ptr<StreamStorage> storage) const;

 private:
  struct Ref {
    uint64_t offset = 0;
    uint32_t size = 0;
    uint32_t crc = 0;
  };
  struct LoadedTable {
    explicit LoadedTable(StaticTable&& t) : table(std::move(t)), info(table) {}
    StaticTable table;
    ChunkTableInfo info;
  };
  struct Kernel {
    Ref table;
    uint32_t table_owner = 0;  // the first kernel whose table frame this is; it holds the loaded table
    Ref blocks_frame;          // version 3: its KernelBlocks frame
    uint32_t num_chunks = 0;
    uint32_t num_blocks = 0;
    std::shared_ptr<const KernelBlockIndex> index_kept;  // versions 1 and 2: from the footer, for good
    mutable std::mutex index_mu;
    mutable std::weak_ptr<const KernelBlockIndex> index_loaded;  // version 3: while someone holds it
    uint32_t segment_insts = 0;
    KernelTotals totals;
    std::vector<std::string> partial_trace;
    mutable std::mutex table_mu;
    mutable std::atomic<const LoadedTable*> table_ready{nullptr};
    mutable std::unique_ptr<LoadedTable> table_owned;
  };
  static constexpr size_t kPooledStreams = 4;
  static constexpr size_t kRecentIndexes = 2;  // block indexes kept after their last holder lets go

  const Kernel& kernel(uint32_t k) const;
  const LoadedTable& loaded_table(uint32_t k) const;
  std::shared_ptr<const KernelBlockIndex> load_block_index(uint32_t k) const;  // version 3
  // A frame reference from the index, checked to lie inside the data region.
  Ref checked_ref(uint64_t offset, uint32_t size, uint32_t crc, const std::string& what) const;
  std::string fail_prefix() const { return path_.string() + ": "; }
  // pread + CRC check of a frame's compressed bytes into `buf`.
  void read_frame(const Ref& ref, const std::string& where, std::string& buf) const;
  void open_and_validate();

  std::filesystem::path path_;
  container::Limits limits_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  uint64_t data_end_ = 0;  // every frame but the footer lies in [kHeadSize, data_end_)
  uint32_t format_version_ = 0;
  std::string producer_;
  TraceManifest manifest_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<StreamStorage>> pool_;
  mutable std::mutex recent_mu_;
  mutable std::shared_ptr<const KernelBlockIndex> recent_[kRecentIndexes];  // [0] the last loaded
};

}  // namespace lockstep
