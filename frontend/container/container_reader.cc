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

  auto check_ref = [&](const proto::FrameRef& r, const std::string& what) {
    if (r.size() == 0 || r.offset() < container::kHeadSize || r.offset() > data_end ||
        r.size() > data_end - r.offset())
      throw TraceError(p + what + ": frame at offset " + std::to_string(r.offset()) + " size " +
                       std::to_string(r.size()) + " lies outside the data region [" +
                       std::to_string(container::kHeadSize) + ", " + std::to_string(data_end) +
                       ") (index points past the end or into the tail)");
    return Ref{r.offset(), r.size(), r.crc32()};
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
    k->blocks.reserve(size_t(idx.blocks_size()));
    for (const proto::BlockEntry& b : idx.blocks()) {
      const uint32_t segments = std::max(1u, b.segments());
      if (segments > 1 && (k->segment_insts == 0 || b.warp_insts() > uint64_t(segments) * k->segment_insts * b.warps()))
        throw TraceError(p + kn + ": a block of " + std::to_string(b.warp_insts()) + " warp instructions in " +
                         std::to_string(segments) + " segments of " + std::to_string(k->segment_insts) +
                         " per warp");
      k->blocks.push_back(BlockInfo{Dim3{b.id().x(), b.id().y(), b.id().z()}, b.warps(), b.warp_insts(), segments});
    }
    // Chunks come in groups: a group's first chunk (segment 0) names its
    // blocks, each further one (segment 1, 2, ...) the same blocks, as many
    // as the group's longest block has segments.
    uint64_t next_block = 0;
    uint64_t chunk_insts = 0;
    uint64_t group_insts = 0, group_seen = 0;
    uint32_t group_segments = 0;
    k->chunks.reserve(size_t(idx.chunks_size()));
    for (int ci = 0; ci < idx.chunks_size(); ++ci) {
      const proto::ChunkEntry& e = idx.chunks(ci);
      const std::string cn = kn + " chunk " + std::to_string(ci);
      const Ref r = check_ref(e.frame(), cn);
      if (e.num_blocks() == 0) throw TraceError(p + cn + ": index lists no blocks");
      if (e.segment() == 0) {
        if (!k->groups.empty() && k->chunks[k->groups.back()].segments != group_segments)
          throw TraceError(p + cn + ": starts new blocks before the segments of the blocks before it");
        if (e.first_block() != next_block)
          throw TraceError(p + cn + ": index says it starts at block " + std::to_string(e.first_block()) +
                           ", expected " + std::to_string(next_block));
        next_block += e.num_blocks();
        if (next_block > uint64_t(idx.blocks_size()))
          throw TraceError(p + cn + ": chunk blocks run past the kernel's " + std::to_string(idx.blocks_size()) +
                           " indexed blocks");
        group_insts = 0;
        group_seen = 0;
        group_segments = 1;
        for (uint32_t b = e.first_block(); b < next_block; ++b) {
          group_insts += k->blocks[b].warp_insts;
          group_segments = std::max(group_segments, k->blocks[b].segments);
        }
        k->groups.push_back(uint32_t(k->chunks.size()));
      } else {
        const ChunkInfo* first = k->groups.empty() ? nullptr : &k->chunks[k->groups.back()];
        if (!first || e.segment() != first->segments || e.first_block() != first->first_block ||
            e.num_blocks() != first->num_blocks || e.segment() >= group_segments)
          throw TraceError(p + cn + ": segment " + std::to_string(e.segment()) + " of blocks from " +
                           std::to_string(e.first_block()) + " does not follow the chunks of its blocks");
      }
      group_seen += e.warp_insts();
      if (group_seen > group_insts || (e.segment() + 1 == group_segments && group_seen != group_insts))
        throw TraceError(p + cn + ": index says " + std::to_string(e.warp_insts()) +
                         " warp instructions but its blocks add up to " + std::to_string(group_insts) +
                         (group_segments > 1 ? " over their segments" : ""));
      chunk_insts += e.warp_insts();
      k->chunks.push_back(ChunkInfo{r.offset, r.size, r.crc, e.first_block(), e.num_blocks(), e.warp_insts(),
                                    e.segment(), e.segment() == 0 ? 1u : 0u});
      if (e.segment() != 0) ++k->chunks[k->groups.back()].segments;
    }
    if (!k->groups.empty() && k->chunks[k->groups.back()].segments != group_segments)
      throw TraceError(p + kn + ": the last blocks lack segments");
    if (next_block != uint64_t(idx.blocks_size()))
      throw TraceError(p + kn + ": chunks hold " + std::to_string(next_block) + " blocks but the index lists " +
                       std::to_string(idx.blocks_size()));
    if (chunk_insts != idx.warp_insts())
      throw TraceError(p + kn + ": index total of " + std::to_string(idx.warp_insts()) +
                       " warp instructions differs from its chunks' " + std::to_string(chunk_insts));
    if (idx.mem_insts() > idx.warp_insts() || idx.thread_insts() / 32 > idx.warp_insts())
      throw TraceError(p + kn + ": inconsistent instruction totals in the index");
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
  if (ordinal >= kn.blocks.size())
    throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": block " + std::to_string(ordinal) +
                     " out of range (" + std::to_string(kn.blocks.size()) + " blocks)");
  auto it = std::upper_bound(kn.groups.begin(), kn.groups.end(), ordinal,
                             [&](uint32_t o, uint32_t c) { return o < kn.chunks[c].first_block; });
  return uint32_t(it - kn.groups.begin()) - 1;
}

uint32_t ContainerReader::chunk_of_block(uint32_t k, uint32_t ordinal) const {
  return kernel(k).groups[group_of_block(k, ordinal)];
}

void ContainerReader::read_chunk(uint32_t k, uint32_t c, std::vector<BlockTrace>& out) const {
  thread_local ChunkScratch scratch;
  read_chunk(k, c, out, scratch);
}

void ContainerReader::read_chunk(uint32_t k, uint32_t c, std::vector<BlockTrace>& out, ChunkScratch& scratch) const {
  const Kernel& kn = kernel(k);
  if (c >= kn.chunks.size())
    throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": chunk " + std::to_string(c) +
                     " out of range (" + std::to_string(kn.chunks.size()) + " chunks)");
  const LoadedTable& table = loaded_table(k);
  const ChunkInfo& ci = kn.chunks[c];
  const std::string where = fail_prefix() + "kernel " + std::to_string(k) + " chunk " + std::to_string(c);
  std::string& buf = scratch.frame_buffer();
  read_frame(Ref{ci.offset, ci.size, ci.crc}, where, buf);
  const uint32_t named = decode_chunk(buf, table.info, out, where, scratch);
  if (named != k) throw TraceError(where + ": chunk names kernel " + std::to_string(named));
  if (out.size() != ci.num_blocks)
    throw TraceError(where + ": holds " + std::to_string(out.size()) + " blocks, the index says " +
                     std::to_string(ci.num_blocks));
  uint64_t insts = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const uint32_t ordinal = ci.first_block + uint32_t(i);
    const BlockInfo& want = kn.blocks[ordinal];
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
  if (insts != ci.warp_insts)
    throw TraceError(where + ": holds " + std::to_string(insts) + " warp instructions, the index says " +
                     std::to_string(ci.warp_insts));
}

void ContainerReader::read_group(uint32_t k, uint32_t g, std::vector<BlockTrace>& out, ChunkScratch& scratch,
                                 Parts parts) const {
  const Kernel& kn = kernel(k);
  const uint32_t first = kn.groups[g];
  read_chunk(k, first, out, scratch);
  const uint32_t segments = kn.chunks[first].segments;
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
  for (BlockTrace& whole : out) {
    if (whole.warp_insts() != kn.blocks[whole.ordinal].warp_insts)
      throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": block " + std::to_string(whole.ordinal) +
                       ": its segments hold " + std::to_string(whole.warp_insts()) +
                       " warp instructions, the index says " + std::to_string(kn.blocks[whole.ordinal].warp_insts));
    whole.segments = 1;
    whole.segment_insts = 0;
  }
}

uint32_t ContainerReader::read_segment(uint32_t k, uint32_t ordinal, uint32_t segment, std::vector<BlockTrace>& out,
                                       ChunkScratch& scratch) const {
  const uint32_t first = chunk_of_block(k, ordinal);
  const Kernel& kn = kernel(k);
  if (segment >= kn.blocks[ordinal].segments)
    throw TraceError(fail_prefix() + "kernel " + std::to_string(k) + ": block " + std::to_string(ordinal) +
                     " has no segment " + std::to_string(segment));
  read_chunk(k, first + segment, out, scratch);
  return kn.chunks[first].first_block;
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
  return std::move(blocks[ordinal - kernel(k).chunks[group_chunk(k, g)].first_block]);
}

uint64_t ContainerReader::check_every_frame() const {
  uint64_t chunks = 0;
  std::vector<BlockTrace> blocks;
  for (uint32_t k = 0; k < kernel_count(); ++k) {
    totals(k);  // loads the table and checks the opcode counts against it
    thread_local ChunkScratch scratch;
    for (uint32_t g = 0; g < group_count(k); ++g) {
      read_group(k, g, blocks, scratch, Parts::kWhole);
      chunks += kernel(k).chunks[group_chunk(k, g)].segments;
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
