#pragma once
// Accel-Sim's .tracez kernel traces (written by its post-traces-processing
// tool by default; `--text` writes .traceg instead):
//
//   the kernel header as text, ended by a NUL byte
//   u32 dictionary size D, u32 sub-chunk length (informative)
//   D bytes: a zstd dictionary (none when D = 0)
//   per block, per warp: u32 instruction count, u32 sub-chunk count, then per
//     sub-chunk u32 compressed size and a zstd frame (with the dictionary)
//     holding that many instruction lines, '\n'-separated, each as a .traceg
//     line
//   the index: u32 block count, per block its id x, y, z, cluster id x, y, z,
//     index in the cluster x, y, z, rank in the cluster and warp count (u32
//     each), per warp u32 instruction count, u32 sub-chunk count, u64 file
//     offset of its data, and each sub-chunk's u32 instruction count
//   u64 offset of the index (the file's last 8 bytes)
//
// All integers little-endian. Every count and offset is checked against the
// file before it is used; a block comes out as the text of a .traceg block
// (what `lockstep export` writes), so one parser reads both forms. Blocks
// are read in file order.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "frontend/text/block_parser.h"

struct ZSTD_DCtx_s;
struct ZSTD_DDict_s;

namespace lockstep {

class TracezFile {
 public:
  explicit TracezFile(const std::filesystem::path& path);
  // A .tracez held in memory (tests, fuzzing), named `name` in errors.
  TracezFile(std::string bytes, std::string name);
  ~TracezFile();
  TracezFile(const TracezFile&) = delete;
  TracezFile& operator=(const TracezFile&) = delete;

  // The kernel header's text ("-key = value" lines and comments).
  const std::string& header_text() const { return header_; }
  uint32_t blocks() const { return blocks_; }
  // The next block (in file order) as the body of a .traceg block: "thread
  // block = ...", its cluster lines, then "warp = w", "insts = n" and the
  // lines of each warp; false after the last. `out.label` names the file and
  // the block for error messages. The index is read one block record at a
  // time, so memory does not grow with the blocks.
  bool next_block(BlockText& out);

 private:
  struct Warp {
    uint32_t insts = 0;
    uint64_t offset = 0;
    std::vector<uint32_t> subchunk_insts;
  };
  struct Block {
    Dim3 id{0, 0, 0};
    ClusterPlace cluster;
    std::vector<Warp> warps;
  };

  void open();
  [[noreturn]] void fail(const std::string& what) const;
  void read_at(uint64_t offset, void* out, size_t bytes, const char* what);
  uint32_t u32_at(uint64_t offset, const char* what);
  void read_block_record(Block& b);
  void append_warp_lines(const Block& b, size_t w, std::string& text);

  // Owners that also free what a constructor that throws has made.
  struct CloseFile {
    void operator()(std::FILE* f) const;
  };
  struct FreeDCtx {
    void operator()(ZSTD_DCtx_s* d) const;
  };
  struct FreeDDict {
    void operator()(ZSTD_DDict_s* d) const;
  };

  std::string name_;
  std::unique_ptr<std::FILE, CloseFile> file_;  // or, held in memory:
  std::string bytes_;
  uint64_t size_ = 0;
  std::string header_;
  uint64_t data_begin_ = 0;   // the first byte after the dictionary
  uint64_t index_begin_ = 0;  // the index's first byte
  uint64_t index_at_ = 0;     // the next block record
  uint32_t blocks_ = 0;
  uint32_t next_ = 0;         // blocks handed out
  Block block_;
  std::unique_ptr<ZSTD_DCtx_s, FreeDCtx> dctx_;
  std::unique_ptr<ZSTD_DDict_s, FreeDDict> ddict_;
  std::string compressed_;
  std::string plain_;
};

}  // namespace lockstep
