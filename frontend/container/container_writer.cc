#include "frontend/container/container_writer.h"


#include <cerrno>
#include <cstring>
#include <limits>

#include "frontend/container/crc32.h"
#include "frontend/container/format.h"
#include "frontend/container/frame_codec.h"
#include "frontend/container/manifest_codec.h"
#include "frontend/trace/trace_error.h"
#include "trace.pb.h"

namespace lockstep {
namespace {

std::string serialize(const google::protobuf::MessageLite& msg, const std::string& where, const char* what) {
  std::string raw;
  if (!msg.SerializeToString(&raw)) throw TraceError(where + ": cannot serialize " + what);
  return raw;
}

std::string size_text(size_t bytes) {
  return bytes % (size_t(1) << 20) == 0 ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

// The reader's limit on a frame's content, checked before anything is written.
void check_limit(const std::string& raw, size_t limit, const std::string& where, const std::string& what) {
  if (raw.size() > limit)
    throw TraceError(where + ": " + what + " is " + std::to_string(raw.size()) + " bytes, over the container's limit of " +
                     size_text(limit));
}

void set_ref(proto::FrameRef* p, uint64_t offset, uint32_t size, uint32_t crc) {
  p->set_offset(offset);
  p->set_size(size);
  p->set_crc32(crc);
}

}  // namespace

ContainerWriter::ContainerWriter(std::filesystem::path final_path, container::Limits limits, uint32_t format_version)
    : final_path_(std::move(final_path)), limits_(limits), format_version_(format_version), out_(final_path_.string()) {
  if (format_version_ < container::kOldestWritableVersion || format_version_ > container::kFormatVersion)
    throw TraceError(where() + ": cannot write format version " + std::to_string(format_version_) + " (only " +
                     std::to_string(container::kOldestWritableVersion) + " to " +
                     std::to_string(container::kFormatVersion) + ")");
  unsigned char head[container::kHeadSize] = {};
  std::memcpy(head, container::kHeadMagic, 8);
  container::put_u32(head + 8, format_version_);
  container::put_u32(head + 12, 0);
  write_all(head, sizeof head);
}

ContainerWriter::~ContainerWriter() = default;

uint64_t ContainerWriter::bytes_written() const {
  std::lock_guard lock(mu_);
  return offset_;
}

void ContainerWriter::write_all(const void* data, size_t size) {
  out_.write(std::string_view(static_cast<const char*>(data), size));
  offset_ += size;
}

ContainerWriter::Frame ContainerWriter::write_frame(std::string_view frame) {
  if (frame.size() > std::numeric_limits<uint32_t>::max())
    throw TraceError(where() + ": frame of " + std::to_string(frame.size()) + " bytes exceeds 4 GiB");
  Frame f{offset_, uint32_t(frame.size()), crc32(frame.data(), frame.size())};
  write_all(frame.data(), frame.size());
  return f;
}

void ContainerWriter::check_open(const char* what) const {
  if (committed_) throw TraceError(where() + ": " + what + " after commit");
  if (!header_written_) throw TraceError(where() + ": " + what + " before write_header");
}

void ContainerWriter::write_header(const TraceManifest& manifest) {
  std::lock_guard lock(mu_);
  if (committed_) throw TraceError(where() + ": write_header after commit");
  if (header_written_) throw TraceError(where() + ": write_header called twice");
  proto::TraceHeader msg;
  encode_manifest(manifest, format_version_, msg);
  const std::string raw = serialize(msg, where(), "TraceHeader");
  check_limit(raw, limits_.header_bytes, final_path_.string(),
              "the trace header (kernel names and header lines of " + std::to_string(manifest.kernels.size()) +
                  " kernels)");
  header_ = write_frame(compress_frame(raw, FrameCodec::kXz));
  kernels_.assign(manifest.kernels.size(), Kernel{});
  header_written_ = true;
}

void ContainerWriter::add_chunk(EncodedChunk&& chunk) {
  std::lock_guard lock(mu_);
  check_open("add_chunk");
  const std::string ctx = where() + ": kernel " + std::to_string(chunk.kernel_index);
  if (chunk.kernel_index >= kernels_.size())
    throw TraceError(ctx + ": chunk for a kernel the header does not list (" + std::to_string(kernels_.size()) +
                     " kernels)");
  Kernel& k = kernels_[chunk.kernel_index];
  if (chunk.blocks.empty()) throw TraceError(ctx + ": empty chunk");
  if (chunk.segment_insts != 0) {
    if (k.segment_insts != 0 && k.segment_insts != chunk.segment_insts)
      throw TraceError(ctx + ": chunks with segments of " + std::to_string(chunk.segment_insts) + " and of " +
                       std::to_string(k.segment_insts) + " instructions");
    k.segment_insts = chunk.segment_insts;
  }
  uint32_t segments = 1;
  uint64_t sum = 0;
  for (const BlockInfo& b : chunk.blocks) {
    sum += b.warp_insts;
    segments = std::max(segments, b.segments);
  }
  if (segments > 1 && chunk.segment_insts == 0)
    throw TraceError(ctx + ": segmented blocks without a segment size");
  if (chunk.segment == 0) {
    if (k.group_segments_left != 0)
      throw TraceError(ctx + ": chunk at block " + std::to_string(chunk.first_block) + " before the " +
                       std::to_string(k.group_segments_left) + " remaining segments of the blocks before it");
    if (chunk.first_block != k.index.block_count())
      throw TraceError(ctx + ": chunk starts at block " + std::to_string(chunk.first_block) + ", expected " +
                       std::to_string(k.index.block_count()) + " (chunks must be added in block order)");
    if (k.index.block_count() + chunk.blocks.size() > std::numeric_limits<uint32_t>::max())
      throw TraceError(ctx + ": more than 2^32 blocks");
    if (k.index.chunk_count() == std::numeric_limits<uint32_t>::max()) throw TraceError(ctx + ": more than 2^32 chunks");
    for (const BlockInfo& b : chunk.blocks) k.index.add_block(b);
    k.group_first_block = chunk.first_block;
    k.group_blocks = uint32_t(chunk.blocks.size());
    k.group_insts_left = sum;
    k.group_segments_left = segments;
  } else if (chunk.segment != k.group_next_segment || chunk.first_block != k.group_first_block ||
             chunk.blocks.size() != k.group_blocks || k.group_segments_left == 0) {
    throw TraceError(ctx + ": segment " + std::to_string(chunk.segment) + " of the blocks from " +
                     std::to_string(chunk.first_block) + " out of order (segments follow their blocks' first, in order)");
  }
  if (chunk.warp_insts > k.group_insts_left ||
      (k.group_segments_left == 1 && chunk.warp_insts != k.group_insts_left))
    throw TraceError(ctx + ": chunk totals disagree with its block summaries");
  k.group_insts_left -= chunk.warp_insts;
  --k.group_segments_left;
  k.group_next_segment = chunk.segment + 1;

  const Frame f = write_frame(chunk.frame);
  k.index.add_chunk(f.offset, f.size, f.crc, uint32_t(chunk.blocks.size()), chunk.warp_insts, chunk.segment);
  k.warp_insts += chunk.warp_insts;
  k.mem_insts += chunk.mem_insts;
  k.thread_insts += chunk.thread_insts;
  if (k.static_counts.size() < chunk.static_counts.size()) k.static_counts.resize(chunk.static_counts.size(), 0);
  for (size_t i = 0; i < chunk.static_counts.size(); ++i) k.static_counts[i] += chunk.static_counts[i];
}

void ContainerWriter::add_table_locked(uint32_t kernel_index, const StaticTable& table) {
  Kernel& k = kernels_[kernel_index];
  // The opcode mapping comes from the message itself, so it matches the
  // frame even while another thread keeps interning into `table`.
  proto::KernelTable msg;
  encode_kernel_table(kernel_index, table, msg);
  k.inst_opcode.assign(msg.opcode_ids().begin(), msg.opcode_ids().end());
  k.opcode_count = uint32_t(msg.opcodes_size());
  // A kernel launched again (or another with the same code) has the same
  // table: write it once and let both index entries point at it.
  msg.set_kernel_index(0);
  std::string key = serialize(msg, where(), "KernelTable");
  if (const auto it = tables_.find(key); it != tables_.end()) {
    k.table = it->second;
  } else {
    msg.set_kernel_index(kernel_index);
    const std::string raw = serialize(msg, where(), "KernelTable");
    check_limit(raw, limits_.table_bytes, final_path_.string(),
                "kernel " + std::to_string(kernel_index) + "'s table of static instructions");
    k.table = write_frame(compress_frame(raw, FrameCodec::kXz));
    tables_.emplace(std::move(key), k.table);
  }
  k.has_table = true;
}

void ContainerWriter::add_kernel_table(uint32_t kernel_index, const StaticTable& table) {
  std::lock_guard lock(mu_);
  check_open("add_kernel_table");
  if (kernel_index >= kernels_.size())
    throw TraceError(where() + ": kernel " + std::to_string(kernel_index) +
                     ": table for a kernel the header does not list (" + std::to_string(kernels_.size()) +
                     " kernels)");
  if (kernels_[kernel_index].has_table)
    throw TraceError(where() + ": kernel " + std::to_string(kernel_index) + ": table added twice");
  add_table_locked(kernel_index, table);
}

void ContainerWriter::set_partial_trace(uint32_t kernel_index, std::vector<std::string> findings) {
  std::lock_guard lock(mu_);
  check_open("set_partial_trace");
  if (kernel_index >= kernels_.size())
    throw TraceError(where() + ": kernel " + std::to_string(kernel_index) + ": the header lists " +
                     std::to_string(kernels_.size()) + " kernels");
  kernels_[kernel_index].partial_trace = std::move(findings);
}

void ContainerWriter::write_block_index(uint32_t kernel_index, Kernel& k, proto::KernelIndex& entry) {
  proto::KernelBlocks blocks;
  const uint32_t num_chunks = k.index.chunk_count(), num_blocks = k.index.block_count();
  const uint64_t warps = k.index.warps();
  k.index.finish(kernel_index, blocks);
  if (format_version_ >= 3) {
    const Frame f = write_frame(compress_frame(serialize(blocks, where(), "KernelBlocks"), FrameCodec::kLz4Hc));
    set_ref(entry.mutable_blocks_frame(), f.offset, f.size, f.crc);
    entry.set_num_chunks(num_chunks);
    entry.set_num_blocks(num_blocks);
    entry.set_warps(warps);
    return;
  }
  // Version 2: the same rows as footer entries.
  const KernelBlockRows rows = decode_kernel_block_rows(blocks, where() + ": kernel " + std::to_string(kernel_index));
  for (const ChunkInfo& c : rows.chunks) {
    proto::ChunkEntry* e = entry.add_chunks();
    set_ref(e->mutable_frame(), c.offset, c.size, c.crc);
    e->set_first_block(c.first_block);
    e->set_num_blocks(c.num_blocks);
    e->set_warp_insts(c.warp_insts);
    e->set_segment(c.segment);
  }
  for (const BlockInfo& b : rows.blocks) {
    proto::BlockEntry* e = entry.add_blocks();
    e->mutable_id()->set_x(b.id.x);
    e->mutable_id()->set_y(b.id.y);
    e->mutable_id()->set_z(b.id.z);
    e->set_warps(b.warps);
    e->set_warp_insts(b.warp_insts);
    if (b.segments > 1) e->set_segments(b.segments);
  }
}

void ContainerWriter::commit() {
  std::lock_guard lock(mu_);
  check_open("commit");
  proto::TraceFooter footer;
  set_ref(footer.mutable_header(), header_.offset, header_.size, header_.crc);
  for (uint32_t ki = 0; ki < kernels_.size(); ++ki) {
    Kernel& k = kernels_[ki];
    const std::string ctx = where() + ": kernel " + std::to_string(ki);
    if (!k.has_table) {
      if (k.index.chunk_count() != 0) throw TraceError(ctx + ": has chunks but no kernel table");
      add_table_locked(ki, StaticTable{});
    }
    if (k.group_segments_left != 0)
      throw TraceError(ctx + ": the blocks from " + std::to_string(k.group_first_block) + " lack " +
                       std::to_string(k.group_segments_left) + " segments");
    proto::KernelIndex* idx = footer.add_kernels();
    idx->set_kernel_index(ki);
    set_ref(idx->mutable_table(), k.table.offset, k.table.size, k.table.crc);
    write_block_index(ki, k, *idx);
    idx->set_segment_insts(k.segment_insts);
    idx->set_warp_insts(k.warp_insts);
    idx->set_mem_insts(k.mem_insts);
    idx->set_thread_insts(k.thread_insts);
    std::vector<uint64_t> opcode_counts(k.opcode_count, 0);
    for (size_t s = 0; s < k.static_counts.size(); ++s) {
      if (k.static_counts[s] == 0) continue;
      if (s >= k.inst_opcode.size())
        throw TraceError(ctx + ": chunks use static id " + std::to_string(s) + " but its table has " +
                         std::to_string(k.inst_opcode.size()) + " entries");
      opcode_counts[k.inst_opcode[s]] += k.static_counts[s];
    }
    for (uint64_t c : opcode_counts) idx->add_opcode_counts(c);
    for (const std::string& f : k.partial_trace) idx->add_partial_trace(f);
  }
  const Frame f = write_frame(compress_frame(serialize(footer, where(), "TraceFooter"), FrameCodec::kLz4Hc));
  unsigned char tail[container::kTailSize];
  container::FileTail{f.offset, f.size, f.crc, format_version_}.write(tail);
  write_all(tail, sizeof tail);
  out_.commit();
  committed_ = true;
}

}  // namespace lockstep
