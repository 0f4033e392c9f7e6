#pragma once
// Writes Accel-Sim text traces (kernelslist.g, kernel-N.traceg) from the
// decoded form, in the dialect the kernel's header names: per-line
// "tb_x tb_y tb_z warp" prefix before tracer version 3, a leading line number
// when lineinfo is on, a trailing immediate from version 5. Addresses are
// written as the tracer does: "1 base stride" when the active lanes have one
// stride, else "2 base d1 d2 ...".
#include <cstdio>
#include <string>

#include "frontend/trace/block_trace.h"
#include "frontend/trace/kernel_info.h"

namespace lockstep {

// A buffered FILE* sink that throws TraceError on any write failure.
class TextSink {
 public:
  explicit TextSink(std::FILE* file, std::string name) : file_(file), name_(std::move(name)) {}
  ~TextSink();
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;

  void put(std::string_view s) {
    if (buf_.size() + s.size() > kFlushAt) flush();
    buf_.append(s);
  }
  std::string& buffer() { return buf_; }  // append directly; call maybe_flush() after
  void maybe_flush() {
    if (buf_.size() > kFlushAt) flush();
  }
  void flush();

 private:
  static constexpr size_t kFlushAt = 1 << 20;
  std::FILE* file_;
  std::string name_;
  std::string buf_;
};

void write_kernel_header(TextSink& out, const KernelInfo& kernel);
// A block's "thread block = x,y,z" line and, given its place in a cluster,
// its "cluster id", "cluster cta" and "cluster rank" lines.
void append_block_place(std::string& s, const Dim3& id, const ClusterPlace* cluster);
void write_block_text(TextSink& out, const KernelInfo& kernel, const BlockTrace& block, const StaticTable& table);
// kernelslist.g: memcpy lines and kernel file names (KernelInfo::source_file) in command order.
void write_kernelslist(TextSink& out, const TraceManifest& manifest);

}  // namespace lockstep
