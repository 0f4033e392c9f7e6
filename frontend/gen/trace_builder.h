#pragma once
// The trace being generated: device allocations, the kernelslist (memcpys and
// launches in program order) and one KernelWriter per launch that streams
// blocks to kernel-N.traceg as they are built, one block in memory at a time.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "frontend/gen/program.h"
#include "frontend/gen/workload_generator.h"
#include "frontend/text/text_writer.h"
#include "frontend/trace/kernel_info.h"

namespace lockstep::gen {

struct LaunchSpec {
  std::string name;  // mangled kernel name
  Dim3 grid;
  Dim3 block;
  uint32_t shmem_bytes = 0;
};

class TraceBuilder {
 public:
  TraceBuilder(const GenOptions& options, std::filesystem::path dir);

  const GenOptions& options() const { return options_; }
  uint32_t sm() const { return options_.arch; }
  // cudaMalloc: 512-byte aligned, 2 MB aligned for large buffers, below the shared window.
  uint64_t alloc(uint64_t bytes);
  void memcpy_htod(uint64_t address, uint64_t bytes);
  uint64_t shmem_base() const { return shmem_base_; }
  uint64_t local_base() const { return shmem_base_ - 0x2000000; }
  const std::filesystem::path& dir() const { return dir_; }

  // Writes kernelslist.g; call once, after the last kernel is closed.
  void finish();
  const GenSummary& summary() const { return summary_; }

 private:
  friend class KernelWriter;
  GenOptions options_;
  std::filesystem::path dir_;
  TraceManifest manifest_;
  uint64_t heap_next_;
  uint64_t shmem_base_;
  GenSummary summary_;
};

// One launch. Blocks are written in the order they are built.
class KernelWriter {
 public:
  KernelWriter(TraceBuilder& trace, const LaunchSpec& spec, const Program& program);
  ~KernelWriter();
  KernelWriter(const KernelWriter&) = delete;
  KernelWriter& operator=(const KernelWriter&) = delete;

  const KernelInfo& info() const { return info_; }
  uint32_t warps_per_block() const { return info_.warps_per_block(); }
  // Starts block `id`: every warp empty (storage reused between blocks).
  BlockTrace& begin_block(Dim3 id);
  WarpWriter warp(uint32_t index) { return WarpWriter(program_, &block_.warps[index]); }
  void end_block();
  // Flushes and closes the file; the destructor closes without reporting errors.
  void close();

 private:
  TraceBuilder& trace_;
  const Program& program_;
  KernelInfo info_;
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<TextSink> sink_;
  BlockTrace block_;
  bool in_block_ = false;
};

}  // namespace lockstep::gen
