#pragma once
// Streams one kernel trace file block by block.
//
// Grouped files (.traceg: "#BEGIN_TB ... #END_TB") are read one block at a
// time. The tracer's raw output (.trace: every line prefixed "tb_x tb_y tb_z
// warp", blocks interleaved in GPU order) is grouped first: lines are
// appended to per-block buffers, which spill to an anonymous temporary file
// whenever they exceed the memory budget, so memory stays bounded whatever the
// file size. Blocks then come out in linear block-index order. Accel-Sim's
// .tracez files (zstd-compressed, indexed) give their blocks in file order
// as the text of grouped blocks (TracezFile).
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/text/block_parser.h"
#include "frontend/text/line_reader.h"
#include "frontend/text/tracez_file.h"
#include "frontend/text/trace_layout.h"
#include "frontend/trace/kernel_info.h"
#include "frontend/trace/warnings.h"

namespace lockstep {

class KernelTextReader {
 public:
  static constexpr size_t kDefaultRawBudget = size_t(64) << 20;

  KernelTextReader(const KernelFileRef& file, const WarningHandler& warn, size_t raw_budget = kDefaultRawBudget);
  // Reads a kernel trace held in memory (tests, fuzzing: `max_line` as LineReader's).
  KernelTextReader(std::string_view data, const std::string& name, const WarningHandler& warn,
                   size_t raw_budget = kDefaultRawBudget, size_t max_line = LineReader::kMaxLineBytes);
  ~KernelTextReader();

  const KernelInfo& info() const { return info_; }
  const std::string& name() const { return lines_->name(); }
  // The next block's text; false after the last block.
  bool next_block(BlockText& out);

 private:
  void start(const WarningHandler& warn);
  bool next_grouped(BlockText& out);
  void group_raw();
  bool next_raw(BlockText& out);
  bool next_tracez(BlockText& out);

  std::unique_ptr<TracezFile> tracez_;  // a .tracez file: blocks come from its index
  std::unique_ptr<LineReader> lines_;
  KernelInfo info_;
  std::string pending_;  // first body line, already consumed from lines_
  bool pending_valid_ = false;
  size_t raw_budget_;

  // Raw grouping state.
  struct Segment {
    uint64_t offset;
    size_t size;
  };
  struct RawBlock {
    std::string buffered;
    std::vector<Segment> spilled;
  };
  bool grouped_ = false;
  std::map<uint64_t, RawBlock> raw_blocks_;  // keyed by linear block index
  std::map<uint64_t, RawBlock>::iterator raw_next_;
  std::FILE* spill_ = nullptr;
  uint64_t spill_size_ = 0;
};

}  // namespace lockstep
