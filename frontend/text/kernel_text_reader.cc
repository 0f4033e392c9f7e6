#include "frontend/text/kernel_text_reader.h"

#include <cstring>

#include "frontend/text/kernel_header.h"
#include "frontend/text/text_parse.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {

KernelTextReader::KernelTextReader(const KernelFileRef& file, const WarningHandler& warn, size_t raw_budget)
    : tracez_(is_tracez_file(file.path) ? std::make_unique<TracezFile>(file.path) : nullptr),
      lines_(tracez_ ? std::make_unique<LineReader>(tracez_->header_text(), file.path.string())
                     : std::make_unique<LineReader>(file.path)),
      raw_budget_(raw_budget) {
  info_.source_file = file.listed_name;
  start(warn);
  if (tracez_) {
    if (pending_valid_)
      throw TraceError(lines_->name() + ": the .tracez header holds a trace line " + quoted_excerpt(pending_));
    info_.raw_tracer_output = false;
  }
}

KernelTextReader::KernelTextReader(std::string_view data, const std::string& name, const WarningHandler& warn,
                                   size_t raw_budget, size_t max_line)
    : lines_(std::make_unique<LineReader>(data, name, max_line)), raw_budget_(raw_budget) {
  info_.source_file = name;
  start(warn);
}

KernelTextReader::~KernelTextReader() {
  if (spill_) std::fclose(spill_);
}

void KernelTextReader::start(const WarningHandler& warn) {
  read_kernel_header(*lines_, info_, pending_, warn);
  pending_valid_ = !pending_.empty();
  // The body's first line tells the form: grouped blocks, or raw prefixed lines.
  if (pending_valid_ && !pending_.starts_with("#BEGIN_TB")) info_.raw_tracer_output = true;
}

bool KernelTextReader::next_block(BlockText& out) {
  if (tracez_) return next_tracez(out);
  return info_.raw_tracer_output ? next_raw(out) : next_grouped(out);
}

bool KernelTextReader::next_tracez(BlockText& out) { return tracez_->next_block(out); }

bool KernelTextReader::next_grouped(BlockText& out) {
  std::string_view line;
  // Find the next #BEGIN_TB.
  for (;;) {
    if (pending_valid_) {
      pending_valid_ = false;
      line = pending_;
    } else if (!lines_->next(line)) {
      return false;
    }
    line = trim(line);
    if (line.empty()) continue;
    if (line.starts_with("#BEGIN_TB")) break;
    if (line.starts_with("#END_TB")) throw TraceError(lines_->where() + ": #END_TB without a matching #BEGIN_TB");
    if (line.front() == '#') continue;
    throw TraceError(lines_->where() + ": expected #BEGIN_TB, got " + quoted_excerpt(line));
  }
  const uint64_t begin_line = lines_->line_number();
  out.text.clear();
  out.label.clear();
  out.numbered = false;
  out.first_line = begin_line + 1;
  while (lines_->next(line)) {
    if (trim(line).starts_with("#END_TB")) return true;
    if (trim(line).starts_with("#BEGIN_TB"))
      throw TraceError(lines_->where() + ": #BEGIN_TB before the #END_TB of the block opened at line " +
                       std::to_string(begin_line));
    out.text.append(line);
    out.text.push_back('\n');
  }
  throw TraceError(lines_->name() + ":" + std::to_string(begin_line) +
                   ": thread block has no #END_TB (file truncated?)");
}

void KernelTextReader::group_raw() {
  grouped_ = true;
  size_t buffered = 0;
  auto spill = [&] {
    if (!spill_) {
      spill_ = std::tmpfile();
      if (!spill_) throw TraceError(lines_->name() + ": cannot create a temporary file to group raw trace lines");
    }
    for (auto& [key, block] : raw_blocks_) {
      if (block.buffered.empty()) continue;
      if (std::fwrite(block.buffered.data(), 1, block.buffered.size(), spill_) != block.buffered.size())
        throw TraceError(lines_->name() + ": writing the grouping spill file failed (disk full?)");
      block.spilled.push_back({spill_size_, block.buffered.size()});
      spill_size_ += block.buffered.size();
      std::string().swap(block.buffered);
    }
    buffered = 0;
  };
  std::string_view line;
  std::string first = pending_;
  bool use_first = pending_valid_;
  pending_valid_ = false;
  uint64_t first_line_no = lines_->line_number();
  for (;;) {
    uint64_t line_no;
    if (use_first) {
      line = first;
      line_no = first_line_no;
      use_first = false;
    } else if (lines_->next(line)) {
      line_no = lines_->line_number();
    } else {
      break;
    }
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '-') throw TraceError(lines_->where() + ": header line after the first instruction");
    Tokenizer tok(line);
    uint32_t xyz[3];
    for (uint32_t& v : xyz) {
      const std::string_view t = tok.next();
      if (!parse_dec_u32(t, v))
        throw TraceError(lines_->name() + ":" + std::to_string(line_no) + ": expected 'tb_x tb_y tb_z warp' prefix, got " +
                         quoted_excerpt(line));
    }
    const Dim3 id{xyz[0], xyz[1], xyz[2]};
    if (id.x >= info_.grid.x || id.y >= info_.grid.y || id.z >= info_.grid.z)
      throw TraceError(lines_->name() + ":" + std::to_string(line_no) + ": thread block " + id.str() + " outside grid " +
                       info_.grid.str());
    RawBlock& block = raw_blocks_[info_.grid.linear(id)];
    const size_t before = block.buffered.size();
    block.buffered.append(std::to_string(line_no));
    block.buffered.push_back(' ');
    block.buffered.append(line);
    block.buffered.push_back('\n');
    buffered += block.buffered.size() - before;
    if (buffered > raw_budget_) spill();
  }
  raw_next_ = raw_blocks_.begin();
}

bool KernelTextReader::next_raw(BlockText& out) {
  if (!grouped_) group_raw();
  if (raw_next_ == raw_blocks_.end()) return false;
  RawBlock& block = raw_next_->second;
  out.text.clear();
  out.label.clear();
  out.numbered = true;
  out.first_line = 0;
  for (const Segment& s : block.spilled) {
    const size_t at = out.text.size();
    out.text.resize(at + s.size);
    if (std::fseek(spill_, long(s.offset), SEEK_SET) != 0 || std::fread(out.text.data() + at, 1, s.size, spill_) != s.size)
      throw TraceError(lines_->name() + ": reading the grouping spill file failed");
  }
  out.text.append(block.buffered);
  std::string().swap(block.buffered);
  ++raw_next_;
  return true;
}

}  // namespace lockstep
