#include "frontend/gen/trace_builder.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <stdexcept>

#include "frontend/gen/rng.h"

namespace lockstep::gen {
namespace {

constexpr uint64_t kSharedAboveHeap = 0x1000000000ull;  // 64 GB of heap below the shared window

std::string hex16(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

// "(x,y,z)" as the tracer prints dims.
std::string dim_str(const Dim3& d) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "(%u,%u,%u)", d.x, d.y, d.z);
  return buf;
}

std::runtime_error io_error(const std::string& what, const std::filesystem::path& path, int err) {
  return std::runtime_error(what + " " + path.string() + ": " + std::strerror(err));
}

}  // namespace

TraceBuilder::TraceBuilder(const GenOptions& options, std::filesystem::path dir)
    : options_(options), dir_(std::move(dir)) {
  // Where the driver put the heap and the shared window differs run to run;
  // derive it from the seed, in the 0x00007fXX........ range real traces show.
  const uint64_t h = hash3(options.seed, 0xa5a5, 0);
  const uint64_t heap_base = 0x00007f0000000000ull + ((0x100 + h % 0xa00) << 28);
  heap_next_ = heap_base + 0x400000 + ((h >> 20) % 64) * 0x200000;
  shmem_base_ = heap_base + kSharedAboveHeap + ((h >> 32) % 8) * 0x2000000 + 0x4000000;
  manifest_.source = dir_.string();
}

uint64_t TraceBuilder::alloc(uint64_t bytes) {
  const uint64_t align = bytes >= 0x200000 ? 0x200000 : 0x200;
  const uint64_t addr = (heap_next_ + align - 1) & ~(align - 1);
  heap_next_ = addr + std::max<uint64_t>(bytes, 1);
  if (heap_next_ >= local_base()) throw std::runtime_error("gen: device allocations exceed the heap window");
  return addr;
}

void TraceBuilder::memcpy_htod(uint64_t address, uint64_t bytes) {
  TraceCommand c;
  c.kind = TraceCommand::Kind::kMemcpy;
  c.memcpy = MemcpyHtoD{address, bytes};
  manifest_.commands.push_back(c);
}

void TraceBuilder::finish() {
  const std::filesystem::path path = dir_ / "kernelslist.g";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw io_error("cannot create", path, errno);
  {
    TextSink sink(f, path.string());
    try {
      write_kernelslist(sink, manifest_);
      sink.flush();
    } catch (...) {
      std::fclose(f);
      throw;
    }
  }
  if (std::fclose(f) != 0) throw io_error("cannot write", path, errno);
  summary_.bytes += std::filesystem::file_size(path);
}

KernelWriter::KernelWriter(TraceBuilder& trace, const LaunchSpec& spec, const Program& program)
    : trace_(trace), program_(program) {
  const uint32_t id = trace.summary_.kernels + 1;
  KernelInfo& k = info_;
  k.kernel_id = id;
  k.name = spec.name;
  k.grid = spec.grid;
  k.block = spec.block;
  k.shmem_bytes = spec.shmem_bytes;
  k.nregs = program.nregs();
  k.binary_version = trace.sm();
  k.cuda_stream_id = 0;
  k.shmem_base = trace.shmem_base();
  k.local_base = trace.local_base();
  k.nvbit_version = "1.7";
  k.tracer_version = 5;
  k.lineinfo = false;
  k.header_fields = {
      {"kernel name", k.name},
      {"kernel id", std::to_string(id)},
      {"grid dim", dim_str(k.grid)},
      {"block dim", dim_str(k.block)},
      {"shmem", std::to_string(k.shmem_bytes)},
      {"nregs", std::to_string(k.nregs)},
      {"binary version", std::to_string(k.binary_version)},
      {"cuda stream id", std::to_string(k.cuda_stream_id)},
      {"shmem base_addr", hex16(k.shmem_base)},
      {"local mem base_addr", hex16(k.local_base)},
      {"nvbit version", k.nvbit_version},
      {"accelsim tracer version", std::to_string(k.tracer_version)},
      {"enable lineinfo", "0"},
  };
  k.format_comment =
      "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
      "[adrrescompress?] [mem_addresses] immediate";
  k.source_file = "kernel-" + std::to_string(id) + ".traceg";

  path_ = trace.dir() / k.source_file;
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) throw io_error("cannot create", path_, errno);
  sink_ = std::make_unique<TextSink>(file_, path_.string());
  write_kernel_header(*sink_, k);

  trace.summary_.kernels = id;
  TraceCommand c;
  c.kind = TraceCommand::Kind::kKernel;
  c.kernel_index = uint32_t(trace.manifest_.kernels.size());
  trace.manifest_.kernels.push_back(k);
  trace.manifest_.commands.push_back(c);

  block_.warps.resize(k.warps_per_block());
  for (uint32_t w = 0; w < block_.warps.size(); ++w) block_.warps[w].warp_id = w;
}

KernelWriter::~KernelWriter() {
  if (file_) {
    sink_.reset();  // writes what it holds, errors ignored: the run is failing anyway
    std::fclose(file_);
  }
}

BlockTrace& KernelWriter::begin_block(Dim3 id) {
  block_.id = id;
  for (WarpTrace& w : block_.warps) w.clear();
  in_block_ = true;
  return block_;
}

void KernelWriter::end_block() {
  if (!in_block_) throw std::logic_error("gen: end_block without begin_block");
  in_block_ = false;
  write_block_text(*sink_, info_, block_, program_.table());
  trace_.summary_.blocks += 1;
  trace_.summary_.warp_insts += block_.warp_insts();
}

void KernelWriter::close() {
  if (!file_) return;
  sink_->flush();
  sink_.reset();
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) throw io_error("cannot write", path_, errno);
  trace_.summary_.bytes += std::filesystem::file_size(path_);
}

}  // namespace lockstep::gen
