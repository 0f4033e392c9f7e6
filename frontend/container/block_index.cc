#include "frontend/container/block_index.h"

#include <algorithm>

#include "frontend/trace/trace_error.h"
#include "trace.pb.h"

namespace lockstep {

KernelBlockIndex::KernelBlockIndex(KernelBlockRows&& rows) : chunks(std::move(rows.chunks)) {
  for (const BlockInfo& b : rows.blocks) blocks.push_back(b);
  blocks.shrink_to_fit();
}

uint64_t KernelBlockIndex::check_and_group(uint32_t segment_insts, uint64_t warp_insts, const std::string& kn) {
  uint64_t warps = 0;
  if (!blocks.empty()) {
    PackedBlocks::Cursor all = blocks.from(0);
    for (uint32_t i = 0; i < blocks.size(); ++i) {
      const BlockInfo b = all.next();
      warps += b.warps;
      if (b.segments > 1 && (segment_insts == 0 || b.warp_insts > uint64_t(b.segments) * segment_insts * b.warps))
        throw TraceError(kn + ": a block of " + std::to_string(b.warp_insts) + " warp instructions in " +
                         std::to_string(b.segments) + " segments of " + std::to_string(segment_insts) + " per warp");
    }
  }
  // Chunks come in groups: a group's first chunk (segment 0) names its
  // blocks, each further one (segment 1, 2, ...) the same blocks, as many
  // as the group's longest block has segments.
  groups.clear();
  uint64_t next_block = 0;
  uint64_t chunk_insts = 0;
  uint64_t group_insts = 0, group_seen = 0;
  uint32_t group_segments = 0;
  for (size_t ci = 0; ci < chunks.size(); ++ci) {
    ChunkInfo& e = chunks[ci];
    const std::string cn = kn + " chunk " + std::to_string(ci);
    if (e.num_blocks == 0) throw TraceError(cn + ": index lists no blocks");
    e.segments = e.segment == 0 ? 1 : 0;
    if (e.segment == 0) {
      if (!groups.empty() && chunks[groups.back()].segments != group_segments)
        throw TraceError(cn + ": starts new blocks before the segments of the blocks before it");
      if (e.first_block != next_block)
        throw TraceError(cn + ": index says it starts at block " + std::to_string(e.first_block) + ", expected " +
                         std::to_string(next_block));
      next_block += e.num_blocks;
      if (next_block > blocks.size())
        throw TraceError(cn + ": chunk blocks run past the kernel's " + std::to_string(blocks.size()) +
                         " indexed blocks");
      group_insts = 0;
      group_seen = 0;
      group_segments = 1;
      PackedBlocks::Cursor group = blocks.from(e.first_block);
      for (uint64_t b = e.first_block; b < next_block; ++b) {
        const BlockInfo info = group.next();
        group_insts += info.warp_insts;
        group_segments = std::max(group_segments, info.segments);
      }
      groups.push_back(uint32_t(ci));
    } else {
      const ChunkInfo* first = groups.empty() ? nullptr : &chunks[groups.back()];
      if (!first || e.segment != first->segments || e.first_block != first->first_block ||
          e.num_blocks != first->num_blocks || e.segment >= group_segments)
        throw TraceError(cn + ": segment " + std::to_string(e.segment) + " of blocks from " +
                         std::to_string(e.first_block) + " does not follow the chunks of its blocks");
    }
    group_seen += e.warp_insts;
    if (group_seen > group_insts || (e.segment + 1 == group_segments && group_seen != group_insts))
      throw TraceError(cn + ": index says " + std::to_string(e.warp_insts) +
                       " warp instructions but its blocks add up to " + std::to_string(group_insts) +
                       (group_segments > 1 ? " over their segments" : ""));
    chunk_insts += e.warp_insts;
    if (e.segment != 0) ++chunks[groups.back()].segments;
  }
  if (!groups.empty() && chunks[groups.back()].segments != group_segments)
    throw TraceError(kn + ": the last blocks lack segments");
  if (next_block != blocks.size())
    throw TraceError(kn + ": chunks hold " + std::to_string(next_block) + " blocks but the index lists " +
                     std::to_string(blocks.size()));
  if (chunk_insts != warp_insts)
    throw TraceError(kn + ": index total of " + std::to_string(warp_insts) +
                     " warp instructions differs from its chunks' " + std::to_string(chunk_insts));
  return warps;
}

uint32_t KernelBlockIndex::group_of_block(uint32_t ordinal) const {
  auto it = std::upper_bound(groups.begin(), groups.end(), ordinal,
                             [&](uint32_t o, uint32_t c) { return o < chunks[c].first_block; });
  return uint32_t(it - groups.begin()) - 1;
}

void KernelBlocksBuilder::add_chunk(uint64_t offset, uint32_t size, uint32_t crc, uint32_t num_blocks,
                                    uint64_t warp_insts, uint32_t segment) {
  offsets_.z(int64_t(offset - prev_end_));
  prev_end_ = offset + size;
  sizes_.u(size);
  crcs_.le32(crc);
  chunk_blocks_.u(num_blocks);
  chunk_insts_.u(warp_insts);
  chunk_segments_.u(segment);
  ++chunks_;
}

void KernelBlocksBuilder::add_block(const BlockInfo& b) {
  put_block_summary(ids_, warps_col_, insts_, segments_, b, prev_id_);
  warps_ += b.warps;
  ++blocks_;
}

void KernelBlocksBuilder::finish(uint32_t kernel_index, proto::KernelBlocks& out) {
  out.Clear();
  out.set_kernel_index(kernel_index);
  out.set_num_chunks(chunks_);
  out.set_num_blocks(blocks_);
  out.set_chunk_offsets(offsets_.take());
  out.set_chunk_sizes(sizes_.take());
  out.set_chunk_crcs(crcs_.take());
  out.set_chunk_blocks(chunk_blocks_.take());
  out.set_chunk_insts(chunk_insts_.take());
  out.set_chunk_segments(chunk_segments_.take());
  out.set_block_ids(ids_.take());
  out.set_block_warps(warps_col_.take());
  out.set_block_insts(insts_.take());
  out.set_block_segments(segments_.take());
  *this = KernelBlocksBuilder{};
}

namespace {

// Reads the columns of `msg` row by row: on_chunk(ChunkInfo) for each chunk,
// then on_block(BlockInfo) for each block.
template <class OnChunk, class OnBlock>
void read_columns(const proto::KernelBlocks& msg, const std::string& where, OnChunk&& on_chunk, OnBlock&& on_block) {
  // Each row costs at least a byte per column: a count the columns cannot
  // hold is refused before anything is allocated for it.
  if (msg.num_chunks() > msg.chunk_sizes().size() || msg.num_blocks() > msg.block_warps().size())
    throw TraceError(where + ": lists " + std::to_string(msg.num_chunks()) + " chunks and " +
                     std::to_string(msg.num_blocks()) + " blocks, more than its columns hold");
  try {
    ByteSource offsets(msg.chunk_offsets(), "chunk_offsets"), sizes(msg.chunk_sizes(), "chunk_sizes"),
        crcs(msg.chunk_crcs(), "chunk_crcs"), chunk_blocks(msg.chunk_blocks(), "chunk_blocks"),
        chunk_insts(msg.chunk_insts(), "chunk_insts"), chunk_segments(msg.chunk_segments(), "chunk_segments");
    uint64_t prev_end = 0;
    uint64_t next_block = 0;
    uint32_t group_first = 0;
    for (uint32_t i = 0; i < msg.num_chunks(); ++i) {
      ChunkInfo c;
      c.offset = prev_end + uint64_t(offsets.z());
      c.size = sizes.u32();
      prev_end = c.offset + c.size;
      c.crc = crcs.le32();
      c.num_blocks = chunk_blocks.u32();
      c.warp_insts = chunk_insts.u();
      c.segment = chunk_segments.u32();
      if (c.segment == 0) {
        if (next_block > UINT32_MAX) stream_fail("chunk_blocks stream: more than 2^32 blocks");
        group_first = uint32_t(next_block);
        next_block += c.num_blocks;
      }
      c.first_block = group_first;
      on_chunk(c);
    }
    ByteSource ids(msg.block_ids(), "block_ids"), warps(msg.block_warps(), "block_warps"),
        insts(msg.block_insts(), "block_insts"), segments(msg.block_segments(), "block_segments");
    Dim3 prev{0, 0, 0};
    for (uint32_t i = 0; i < msg.num_blocks(); ++i) on_block(get_block_summary(ids, warps, insts, segments, prev));
    for (const ByteSource* s : {&offsets, &sizes, &crcs, &chunk_blocks, &chunk_insts, &chunk_segments, &ids,
                                &warps, &insts, &segments})
      if (s->left() != 0) stream_fail(std::to_string(s->left()) + " unused bytes in the " + s->name() + " stream");
  } catch (const StreamDecodeError& e) {
    throw TraceError(where + ": " + e.what);
  }
}

}  // namespace

KernelBlockRows decode_kernel_block_rows(const proto::KernelBlocks& msg, const std::string& where) {
  KernelBlockRows rows;
  rows.chunks.reserve(msg.num_chunks() <= msg.chunk_sizes().size() ? msg.num_chunks() : 0);
  rows.blocks.reserve(msg.num_blocks() <= msg.block_warps().size() ? msg.num_blocks() : 0);
  read_columns(msg, where, [&](const ChunkInfo& c) { rows.chunks.push_back(c); },
               [&](const BlockInfo& b) { rows.blocks.push_back(b); });
  return rows;
}

KernelBlockIndex decode_kernel_block_index(const proto::KernelBlocks& msg, const std::string& where) {
  KernelBlockIndex index;
  index.chunks.reserve(msg.num_chunks() <= msg.chunk_sizes().size() ? msg.num_chunks() : 0);
  // A packed row is the block's values of the four columns, coded the same way (put_block_summary).
  if (msg.num_blocks() <= msg.block_warps().size())
    index.blocks.reserve(msg.num_blocks(), msg.block_ids().size() + msg.block_warps().size() +
                                               msg.block_insts().size() + msg.block_segments().size());
  read_columns(msg, where, [&](const ChunkInfo& c) { index.chunks.push_back(c); },
               [&](const BlockInfo& b) { index.blocks.push_back(b); });
  return index;
}

}  // namespace lockstep
