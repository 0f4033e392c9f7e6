#include "frontend/container/container_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "frontend/container/crc32.h"
#include "frontend/container/format.h"
#include "frontend/container/frame_codec.h"
#include "frontend/container/manifest_codec.h"
#include "frontend/trace/trace_error.h"
#include "trace.pb.h"

namespace lockstep {
namespace {

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// Reads exactly `size` bytes at `offset`; returns how many were read before EOF.
size_t pread_full(int fd, void* dst, size_t size, uint64_t offset) {
  auto* p = static_cast<char*>(dst);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, p + done, size - done, off_t(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return done;
    }
    if (n == 0) break;
    done += size_t(n);
  }
  return done;
}

}  // namespace

ContainerReader::ContainerReader(std::filesystem::path path, container::Limits limits)
    : path_(std::move(path)), limits_(limits) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw TraceError(fail_prefix() + "cannot open: " + std::strerror(errno));
  try {
    open_and_validate();
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

ContainerReader::~ContainerReader() {
  if (fd_ >= 0) ::close(fd_);
}

void ContainerReader::read_frame(const Ref& ref, const std::string& where, std::string& buf) const {
  buf.resize(ref.size);
  const size_t got = pread_full(fd_, buf.data(), ref.size, ref.offset);
  if (got != ref.size)
    throw TraceError(where + ": truncated frame (read " + std::to_string(got) + " of " + std::to_string(ref.size) +
                     " bytes at offset " + std::to_string(ref.offset) + ")");
  const uint32_t crc = crc32(buf.data(), buf.size());
  if (crc != ref.crc)
    throw TraceError(where + ": checksum mismatch (crc32 " + hex32(crc) + ", index says " + hex32(ref.crc) + ")");
}

void ContainerReader::open_and_validate() {
  const std::string p = fail_prefix();
  struct stat st;
  if (::fstat(fd_, &st) != 0) throw TraceError(p + "cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw TraceError(p + "not a regular file");
  file_size_ = uint64_t(st.st_size);

  // Head.
  unsigned char head[container::kHeadSize] = {};
  const size_t head_got = pread_full(fd_, head, sizeof head, 0);
  if (head_got < 8 || std::memcmp(head, container::kHeadMagic, 8) != 0) {
    // A file cut inside the magic is reported as truncated below.
    if (head_got >= 8 || std::memcmp(head, container::kHeadMagic, head_got) != 0)
      throw TraceError(p + "bad magic: not a lockstep .lst container");
  }
  if (file_size_ < container::kHeadSize + container::kTailSize)
    throw TraceError(p + "truncated file (" + std::to_string(file_size_) + " bytes; a container has at least " +
                     std::to_string(container::kHeadSize + container::kTailSize) + ")");
  format_version_ = container::get_u32(head + 8);
  if (format_version_ < container::kOldestFormatVersion || format_version_ > container::kFormatVersion)
    throw TraceError(p + "unsupported format version " + std::to_string(format_version_) + " (this build reads " +
                     std::to_string(container::kOldestFormatVersion) + " to " +
                     std::to_string(container::kFormatVersion) + ")");

  // Tail.
  unsigned char tail[container::kTailSize];
  if (pread_full(fd_, tail, sizeof tail, file_size_ - sizeof tail) != sizeof tail)
    throw TraceError(p + "cannot read the tail: " + std::strerror(errno));
  if (std::memcmp(tail + 20, container::kTailMagic, 8) != 0)
    throw TraceError(p + "bad tail magic: file truncated or not completely written");
  const uint64_t footer_offset = container::get_u64(tail);
  const uint32_t footer_size = container::get_u32(tail + 8);
  const uint32_t footer_crc = container::get_u32(tail + 12);
  const uint32_t tail_version = container::get_u32(tail + 16);
  if (tail_version != format_version_)
    throw TraceError(p + "tail format version " + std::to_string(tail_version) + " differs from the head's " +
                     std::to_string(format_version_));
  const uint64_t tail_at = file_size_ - container::kTailSize;
  if (footer_offset < container::kHeadSize || footer_offset > tail_at || footer_size != tail_at - footer_offset)
    throw TraceError(p + "footer at offset " + std::to_string(footer_offset) + " size " + std::to_string(footer_size) +
                     " does not end at the tail (file size " + std::to_string(file_size_) +
                     "): file truncated or corrupt");
  const uint64_t data_end = footer_offset;  // every other frame lies in [kHeadSize, data_end)

  // Footer.
  std::string buf;
  std::string raw;
  try {
    read_frame(Ref{footer_offset, footer_size, footer_crc}, p + "footer", buf);
  } catch (const TraceError& e) {
    throw TraceError(std::string(e.what()) + " (file truncated or corrupt)");
  }
  decompress_frame_into(buf, p + "footer", raw);
  proto::TraceFooter footer;
  if (!footer.ParseFromString(raw)) throw TraceError(p + "footer: bad protobuf (TraceFooter does not parse)");

  data_end_ = data_end;
  auto check_ref = [&](const proto::FrameRef& r, const std::string& what) {
    return checked_ref(r.offset(), r.size(), r.crc32(), what);
  };

  // Header.
  if (!footer.has_header()) throw TraceError(p + "footer has no header reference");
  read_frame(check_ref(footer.header(), "header"), p + "header", buf);
  decompress_frame_to_limit(buf, limits_.header_bytes, p + "header", raw);
  proto::TraceHeader header;
  if (!header.ParseFromString(raw)) throw TraceError(p + "header: bad protobuf (TraceHeader does not parse)");
  if (header.format_version() != format_version_)
    throw TraceError(p + "header: format version " + std::to_string(header.format_version()) +
                     " differs from the file's " + std::to_string(format_version_));
  producer_ = header.producer();
  manifest_ = decode_manifest(header, p + "header");

  // Index.
  if (size_t(footer.kernels_size()) != manifest_.kernels.size())
    throw TraceError(p + "footer indexes " + std::to_string(footer.kernels_size()) + " kernels but the header lists " +
                     std::to_string(manifest_.kernels.size()));
  kernels_.reserve(manifest_.kernels.size());
  std::unordered_map<uint64_t, uint32_t> table_owners;  // table frame offset -> first kernel
  for (int ki = 0; ki < footer.kernels_size(); ++ki) {
    const proto::KernelIndex& idx = footer.kernels(ki);
    const std::string kn = "kernel " + std::to_string(ki);
    if (idx.kernel_index() != uint32_t(ki))
      throw TraceError(p + kn + ": index entry names kernel " + std::to_string(idx.kernel_index()));
    auto k = std::make_unique<Kernel>();
    if (!idx.has_table()) throw TraceError(p + kn + ": no kernel table");
    k->table = check_ref(idx.table(), kn + " table");
    // Kernels with identical tables share one frame (and one loaded table).
    k->table_owner = uint32_t(ki);
    if (const auto [it, fresh] = table_owners.try_emplace(k->table.offset, uint32_t(ki)); !fresh) {
      const Ref& first = kernels_[it->second]->table;
      if (first.size != k->table.size || first.crc != k->table.crc)
        throw TraceError(p + kn + " table: frame at offset " + std::to_string(k->table.offset) +
                         " is also kernel " + std::to_string(it->second) + "'s table, with another size or checksum");
      k->table_owner = it->second;
    }
    k->segment_insts = idx.segment_insts();
    if (format_version_ < 2 && k->segment_insts != 0)
      throw TraceError(p + kn + ": segmented blocks in a format version 1 file");
    if (idx.mem_insts() > idx.warp_insts() || idx.thread_insts() / 32 > idx.warp_insts())
      throw TraceError(p + kn + ": inconsistent instruction totals in the index");
    if (format_version_ >= 3) {
      // The chunks and blocks are in the kernel's own frame, read when needed.
      if (idx.chunks_size() != 0 || idx.blocks_size() != 0)
        throw TraceError(p + kn + ": chunk or block entries in the footer of a version " +
                         std::to_string(format_version_) + " file");
      if (!idx.has_blocks_frame()) throw TraceError(p + kn + ": no block index");
      k->blocks_frame = check_ref(idx.blocks_frame(), kn + " block index");
      k->num_chunks = idx.num_chunks();
      k->num_blocks = idx.num_blocks();
      k->totals.warps = idx.warps();
    } else {
      if (idx.has_blocks_frame() || idx.num_chunks() != 0 || idx.num_blocks() != 0 || idx.warps() != 0)
        throw TraceError(p + kn + ": version 3 index fields in a version " + std::to_string(format_version_) +
                         " file");
      KernelBlockRows rows;
      rows.blocks.reserve(size_t(idx.blocks_size()));
      for (const proto::BlockEntry& b : idx.blocks()) {
        rows.blocks.push_back(
            BlockInfo{Dim3{b.id().x(), b.id().y(), b.id().z()}, b.warps(), b.warp_insts(), std::max(1u, b.segments())});
      }
      rows.chunks.reserve(size_t(idx.chunks_size()));
      for (int ci = 0; ci < idx.chunks_size(); ++ci) {
        const proto::ChunkEntry& e = idx.chunks(ci);
        const Ref r = check_ref(e.frame(), kn + " chunk " + std::to_string(ci));
        rows.chunks.push_back(
            ChunkInfo{r.offset, r.size, r.crc, e.first_block(), e.num_blocks(), e.warp_insts(), e.segment(), 0});
      }
      auto index = std::make_shared<KernelBlockIndex>(std::move(rows));
      k->totals.warps = index->check_and_group(k->segment_insts, idx.warp_insts(), p + kn);
      k->num_chunks = uint32_t(index->chunks.size());
      k->num_blocks = uint32_t(index->blocks.size());
      k->index_kept = std::move(index);
    }
    k->totals.warp_insts = idx.warp_insts();
    k->totals.mem_insts = idx.mem_insts();
    k->totals.thread_insts = idx.thread_insts();
    k->totals.opcode_counts.assign(idx.opcode_counts().begin(), idx.opcode_counts().end());
    k->partial_trace.assign(idx.partial_trace().begin(), idx.partial_trace().end());
    kernels_.push_back(std::move(k));
  }
}

const ContainerReader::Kernel& ContainerReader::kernel(uint32_t k) const {
  if (k >= kernels_.size())
    throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + " out of range (" +
                     std::to_string(kernels_.size()) + " kernels)");
  return *kernels_[k];
}

ContainerReader::Ref ContainerReader::checked_ref(uint64_t offset, uint32_t size, uint32_t crc,
                                                  const std::string& what) const {
  if (size == 0 || offset < container::kHeadSize || offset > data_end_ || size > data_end_ - offset)
    throw TraceError(fail_prefix() + what + ": frame at offset " + std::to_string(offset) + " size " +
                     std::to_string(size) + " lies outside the data region [" + std::to_string(container::kHeadSize) +
                     ", " + std::to_string(data_end_) + ") (index points past the end or into the tail)");
  return Ref{offset, size, crc};
}

std::shared_ptr<const KernelBlockIndex> ContainerReader::block_index(uint32_t k) const {
  const Kernel& kn = kernel(k);
  if (kn.index_kept) return kn.index_kept;
  std::shared_ptr<const KernelBlockIndex> index;
  {
    std::lock_guard lock(kn.index_mu);
    index = kn.index_loaded.lock();
    if (index) return index;
    index = load_block_index(k);
    kn.index_loaded = index;
  }
  // Kept among the last loaded; the one it displaces is freed outside the lock.
  std::shared_ptr<const KernelBlockIndex> dropped;
  {
    std::lock_guard lock(recent_mu_);
    dropped = std::move(recent_[kRecentIndexes - 1]);
    for (size_t i = kRecentIndexes - 1; i > 0; --i) recent_[i] = std::move(recent_[i - 1]);
    recent_[0] = index;
  }
  return index;
}

std::shared_ptr<const KernelBlockIndex> ContainerReader::load_block_index(uint32_t k) const {
  const Kernel& kn = kernel(k);
  const std::string kernel_where = fail_prefix() + "kernel " + std::to_string(k);
  const std::string where = kernel_where + " block index";
  std::string buf, raw;
  read_frame(kn.blocks_frame, where, buf);
  // A row is at most 39 bytes of chunk columns or 35 of block columns.
  const size_t most = 256 + size_t(kn.num_chunks) * 40 + size_t(kn.num_blocks) * 36;
  decompress_frame_into(buf, where, raw, most);
  proto::KernelBlocks msg;
  if (raw.size() > size_t(std::numeric_limits<int>::max()) || !msg.ParseFromArray(raw.data(), int(raw.size())))
    throw TraceError(where + ": bad protobuf (KernelBlocks does not parse)");
  std::string().swap(raw);  // the message holds its own copy of the columns
  std::string().swap(buf);
  if (msg.kernel_index() != k) throw TraceError(where + ": names kernel " + std::to_string(msg.kernel_index()));
  if (msg.num_chunks() != kn.num_chunks || msg.num_blocks() != kn.num_blocks)
    throw TraceError(where + ": lists " + std::to_string(msg.num_chunks()) + " chunks and " +
                     std::to_string(msg.num_blocks()) + " blocks, the footer " + std::to_string(kn.num_chunks) +
                     " and " + std::to_string(kn.num_blocks));
  auto index = std::make_shared<KernelBlockIndex>(decode_kernel_block_index(msg, where));
  msg.Clear();
  for (size_t c = 0; c < index->chunks.size(); ++c) {
    const ChunkInfo& ci = index->chunks[c];
    checked_ref(ci.offset, ci.size, ci.crc, "kernel " + std::to_string(k) + " chunk " + std::to_string(c));
  }
  const uint64_t warps = index->check_and_group(kn.segment_insts, kn.totals.warp_insts, kernel_where);
  if (warps != kn.totals.warps)
    throw TraceError(where + ": its blocks have " + std::to_string(warps) + " warps, the footer says " +
                     std::to_string(kn.totals.warps));
  return index;
}

const ContainerReader::LoadedTable& ContainerReader::loaded_table(uint32_t k) const {
  const Kernel& kn = kernel(k);
  const Kernel& owner = *kernels_[kn.table_owner];  // the first kernel with this table frame
  const LoadedTable* t = owner.table_ready.load(std::memory_order_acquire);
  auto where = [&] { return fail_prefix() + "kernel " + std::to_string(k) + " table"; };
  if (!t) {
    std::lock_guard lock(owner.table_mu);
    t = owner.table_ready.load(std::memory_order_relaxed);
    if (!t) {
      std::string buf;
      read_frame(owner.table, where(), buf);
      uint32_t named = 0;
      auto loaded = std::make_unique<LoadedTable>(decode_kernel_table_frame(buf, where(), &named, limits_.table_bytes));
      if (named >= kernels_.size() || kernels_[named]->table_owner != kn.table_owner)
        throw TraceError(where() + ": table names kernel " + std::to_string(named) +
                         ", which does not use this table frame");
      owner.table_owned = std::move(loaded);
      owner.table_ready.store(owner.table_owned.get(), std::memory_order_release);
      t = owner.table_owned.get();
    }
  }
  if (t->table.opcode_count() != kn.totals.opcode_counts.size()) [[unlikely]]
    throw TraceError(where() + ": " + std::to_string(t->table.opcode_count()) + " opcodes but the index counts " +
                     std::to_string(kn.totals.opcode_counts.size()));
  return *t;
}

const StaticTable& ContainerReader::kernel_table(uint32_t k) const { return loaded_table(k).table; }

uint32_t ContainerReader::group_of_block(uint32_t k, uint32_t ordinal) const {
  const Kernel& kn = kernel(k);
  if (ordinal >= kn.num_blocks)
    throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": block " + std::to_string(ordinal) +
                     " out of range (" + std::to_string(kn.num_blocks) + " blocks)");
  return block_index(k)->group_of_block(ordinal);
}

uint32_t ContainerReader::chunk_of_block(uint32_t k, uint32_t ordinal) const {
  const uint32_t g = group_of_block(k, ordinal);
  return block_index(k)->groups[g];
}

void ContainerReader::read_chunk(uint32_t k, uint32_t c, std::vector<BlockTrace>& out) const {
  thread_local ChunkScratch scratch;
  read_chunk(k, c, out, scratch);
}

void ContainerReader::read_chunk(uint32_t k, uint32_t c, std::vector<BlockTrace>& out, ChunkScratch& scratch,
                                 uint32_t block_limit) const {
  const Kernel& kn = kernel(k);
  if (c >= kn.num_chunks)
    throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": chunk " + std::to_string(c) +
                     " out of range (" + std::to_string(kn.num_chunks) + " chunks)");
  const LoadedTable& table = loaded_table(k);
  const auto index = block_index(k);
  const ChunkInfo& ci = index->chunks[c];
  const std::string where = fail_prefix() + "kernel " + std::to_string(k) + " chunk " + std::to_string(c);
  std::string& buf = scratch.frame_buffer();
  read_frame(Ref{ci.offset, ci.size, ci.crc}, where, buf);
  const uint32_t named = decode_chunk(buf, table.info, out, where, scratch, block_limit);
  if (named != k) throw TraceError(where + ": chunk names kernel " + std::to_string(named));
  const bool partial = block_limit < ci.num_blocks;
  if (out.size() != std::min(ci.num_blocks, block_limit))
    throw TraceError(where + ": holds " + std::to_string(out.size()) + " blocks, the index says " +
                     std::to_string(ci.num_blocks));
  uint64_t insts = 0;
  PackedBlocks::Cursor summaries = index->blocks.from(ci.first_block);
  for (size_t i = 0; i < out.size(); ++i) {
    const uint32_t ordinal = ci.first_block + uint32_t(i);
    const BlockInfo want = summaries.next();
    BlockTrace& got = out[i];
    got.ordinal = ordinal;
    got.segment = ci.segment;
    got.segments = want.segments;
    got.segment_insts = kn.segment_insts;
    const uint64_t got_insts = got.warp_insts();
    insts += got_insts;
    bool fits = got.id == want.id && got.warps.size() == want.warps;
    if (want.segments == 1) {
      fits = fits && (ci.segment == 0 ? got_insts == want.warp_insts : got_insts == 0);
    } else {
      // A segment holds at most S instructions of each warp, none past the block's last segment.
      const size_t most = ci.segment < want.segments ? kn.segment_insts : 0;
      for (const WarpTrace& w : got.warps) fits = fits && w.insts.size() <= most;
    }
    if (!fits)
      throw TraceError(where + ": block " + std::to_string(ordinal) + " " + got.id.str() +
                       (ci.segment ? " segment " + std::to_string(ci.segment) : std::string()) +
                       " does not match the index (" + want.id.str() + ", " + std::to_string(want.warps) +
                       " warps, " + std::to_string(want.warp_insts) + " warp instructions" +
                       (want.segments > 1 ? " in " + std::to_string(want.segments) + " segments of " +
                                                std::to_string(kn.segment_insts) + " per warp"
                                          : std::string()) +
                       ")");
  }
  if (!partial && insts != ci.warp_insts)
    throw TraceError(where + ": holds " + std::to_string(insts) + " warp instructions, the index says " +
                     std::to_string(ci.warp_insts));
}

void ContainerReader::read_group(uint32_t k, uint32_t g, std::vector<BlockTrace>& out, ChunkScratch& scratch,
                                 Parts parts) const {
  const Kernel& kn = kernel(k);
  const auto index = block_index(k);
  if (g >= index->groups.size())
    throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": group " + std::to_string(g) +
                     " out of range (" + std::to_string(index->groups.size()) + " groups)");
  const uint32_t first = index->groups[g];
  read_chunk(k, first, out, scratch);
  const uint32_t segments = index->chunks[first].segments;
  if (parts == Parts::kFirstSegment || segments == 1) return;
  // Join the further segments onto the first: a warp continues in segment s
  // only when it filled segment s - 1.
  const LoadedTable& table = loaded_table(k);
  const auto is_memory = [&](uint32_t id) { return table.table.inst(id).is_memory(); };
  thread_local std::vector<BlockTrace> piece;
  const size_t S = kn.segment_insts;
  for (uint32_t s = 1; s < segments; ++s) {
    read_chunk(k, first + s, piece, scratch);
    for (size_t i = 0; i < out.size(); ++i) {
      BlockTrace& whole = out[i];
      for (size_t w = 0; w < whole.warps.size(); ++w) {
        const WarpTrace& part = piece[i].warps[w];
        if (part.insts.empty()) continue;
        if (whole.warps[w].insts.size() != s * S || part.warp_id != whole.warps[w].warp_id)
          throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + " chunk " + std::to_string(first + s) +
                           ": block " + std::to_string(whole.ordinal) + " warp " + std::to_string(w) +
                           ": segment " + std::to_string(s) + " continues a warp that ended");
        append_instructions(whole.warps[w], part, 0, part.insts.size(), is_memory);
      }
    }
  }
  PackedBlocks::Cursor summaries = index->blocks.from(index->chunks[first].first_block);  // out's blocks, in order
  for (BlockTrace& whole : out) {
    const BlockInfo want = summaries.next();
    if (whole.warp_insts() != want.warp_insts)
      throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": block " + std::to_string(whole.ordinal) +
                       ": its segments hold " + std::to_string(whole.warp_insts()) +
                       " warp instructions, the index says " + std::to_string(want.warp_insts));
    whole.segments = 1;
    whole.segment_insts = 0;
  }
}

uint32_t ContainerReader::read_segment(uint32_t k, uint32_t ordinal, uint32_t segment, std::vector<BlockTrace>& out,
                                       ChunkScratch& scratch, uint32_t through) const {
  const uint32_t first = chunk_of_block(k, ordinal);
  const auto index = block_index(k);
  if (segment >= index->blocks[ordinal].segments)
    throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": block " + std::to_string(ordinal) +
                     " has no segment " + std::to_string(segment));
  const uint32_t first_block = index->chunks[first].first_block;
  const uint32_t limit = through >= ordinal && through != UINT32_MAX ? through - first_block + 1 : UINT32_MAX;
  read_chunk(k, first + segment, out, scratch, limit);
  return first_block;
}

std::pair<uint32_t, uint32_t> ContainerReader::group_blocks(uint32_t k, uint32_t ordinal) const {
  const ChunkInfo& ci = block_index(k)->chunks[chunk_of_block(k, ordinal)];
  return {ci.first_block, ci.first_block + ci.num_blocks};
}

std::unique_ptr<ContainerReader::StreamStorage> ContainerReader::take_stream_storage() const {
  std::lock_guard lock(pool_mu_);
  if (pool_.empty()) return std::make_unique<StreamStorage>();
  std::unique_ptr<StreamStorage> s = std::move(pool_.back());
  pool_.pop_back();
  return s;
}

void ContainerReader::give_stream_storage(std::unique_ptr<StreamStorage> storage) const {
  if (!storage) return;
  std::lock_guard lock(pool_mu_);
  if (pool_.size() < kPooledStreams) pool_.push_back(std::move(storage));
}

BlockTrace ContainerReader::read_block(uint32_t k, uint32_t ordinal) const {
  const uint32_t g = group_of_block(k, ordinal);
  std::vector<BlockTrace> blocks;
  thread_local ChunkScratch scratch;
  read_group(k, g, blocks, scratch, Parts::kWhole);
  const auto index = block_index(k);
  return std::move(blocks[ordinal - index->chunks[index->groups[g]].first_block]);
}

uint64_t ContainerReader::check_every_frame() const {
  uint64_t chunks = 0;
  std::vector<BlockTrace> blocks;
  for (uint32_t k = 0; k < kernel_count(); ++k) {
    totals(k);  // loads the table and checks the opcode counts against it
    thread_local ChunkScratch scratch;
    const auto index = block_index(k);
    for (uint32_t g = 0; g < index->groups.size(); ++g) {
      read_group(k, g, blocks, scratch, Parts::kWhole);
      chunks += index->chunks[index->groups[g]].segments;
    }
  }
  return chunks;
}

std::vector<std::string> ContainerReader::partial_trace() const {
  std::vector<std::string> all;
  for (const auto& k : kernels_) all.insert(all.end(), k->partial_trace.begin(), k->partial_trace.end());
  return all;
}

const KernelTotals& ContainerReader::totals(uint32_t k) const {
  kernel_table(k);  // validates opcode_counts against the table
  return kernel(k).totals;
}

}  // namespace lockstep
