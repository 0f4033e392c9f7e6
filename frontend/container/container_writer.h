#pragma once
// Writes a .lst container (layout in proto/trace.proto) to an OutputFile
// (frontend/io/output_file.h): a regular file goes to "<final_path>.tmp-<pid>"
// first and commit(), after the footer index and the tail, renames it into
// place; a device or FIFO is written directly, "-" is standard output (the
// file is written front to back, never seeked). A writer destroyed without a
// successful commit() removes its temporary file and leaves final_path alone.
//
// Order: write_header() once, then add_chunk() / add_kernel_table() in any
// interleaving, then commit(). Chunks of one kernel must arrive in block
// order (each chunk's first_block continues where the previous one ended),
// a group's segment chunks right after its first (encode_block_group).
// add_kernel_table() may come before or after the kernel's chunks, but the
// table must cover every static id the chunks use. Identical tables of
// several kernels are written once, as one frame they all refer to. Calls are serialised
// internally, so several threads may add chunks (of different kernels).
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/container/block_index.h"
#include "frontend/container/chunk_codec.h"
#include "frontend/container/format.h"
#include "frontend/io/output_file.h"
#include "frontend/trace/kernel_info.h"
#include "frontend/trace/static_table.h"

namespace lockstep::proto {
class KernelIndex;
}

namespace lockstep {

class ContainerWriter {
 public:
  // Refuses a header or kernel table over `limits` (the reader's, unless a
  // test says otherwise). `format_version` from container::kOldestWritableVersion
  // to container::kFormatVersion: version 2 keeps the chunk and block index in
  // the footer, for readers built before version 3.
  explicit ContainerWriter(std::filesystem::path final_path, container::Limits limits = {},
                           uint32_t format_version = container::kFormatVersion);
  ~ContainerWriter();
  ContainerWriter(const ContainerWriter&) = delete;
  ContainerWriter& operator=(const ContainerWriter&) = delete;

  void write_header(const TraceManifest& manifest);
  void add_chunk(EncodedChunk&& chunk);
  void add_kernel_table(uint32_t kernel_index, const StaticTable& table);
  // What the kernel's text trace lacked (read with --allow-partial), kept in its index entry.
  void set_partial_trace(uint32_t kernel_index, std::vector<std::string> findings);
  // Kernels without chunks or table get an empty table and an empty index entry.
  void commit();

  const std::filesystem::path& final_path() const { return final_path_; }
  // Where the bytes go until commit() (empty for a device, a FIFO or "-").
  std::filesystem::path temp_path() const { return out_.temp_name(); }
  uint64_t bytes_written() const;

 private:
  struct Frame {
    uint64_t offset = 0;
    uint32_t size = 0;
    uint32_t crc = 0;
  };
  struct Kernel {
    bool has_table = false;
    Frame table;
    std::vector<uint32_t> inst_opcode;  // static id -> opcode id, from the table
    uint32_t opcode_count = 0;
    KernelBlocksBuilder index;  // its chunks and blocks so far, packed (a few bytes a block)
    uint64_t warp_insts = 0, mem_insts = 0, thread_insts = 0;
    std::vector<uint64_t> static_counts;
    std::vector<std::string> partial_trace;
    uint32_t segment_insts = 0;
    // The group of blocks whose segments are being added.
    uint32_t group_first_block = 0, group_blocks = 0, group_next_segment = 0, group_segments_left = 0;
    uint64_t group_insts_left = 0;
  };

  Frame write_frame(std::string_view frame);  // at the current end; mu_ held
  void write_all(const void* data, size_t size);
  void check_open(const char* what) const;
  void add_table_locked(uint32_t kernel_index, const StaticTable& table);
  // The kernel's chunks and blocks: in its own frame (version 3), or in its footer entry.
  void write_block_index(uint32_t kernel_index, Kernel& k, proto::KernelIndex& entry);
  std::string where() const { return final_path_.string(); }

  mutable std::mutex mu_;
  std::filesystem::path final_path_;
  container::Limits limits_;
  uint32_t format_version_;
  OutputFile out_;
  uint64_t offset_ = 0;
  bool header_written_ = false;
  bool committed_ = false;
  Frame header_;
  std::vector<Kernel> kernels_;
  std::unordered_map<std::string, Frame> tables_;  // table content (kernel index 0) -> its frame
};

}  // namespace lockstep
