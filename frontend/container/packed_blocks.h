#pragma once
// A kernel's block summaries (BlockInfo) packed for as long as its blocks
// are read: a row of varints per block (its id minus the previous block's,
// warps, warp instructions, segments - 1), about 7 bytes a block where a
// BlockInfo takes 32, with a mark every kMarkBlocks rows so that any block
// decodes from the mark before it. A kernel of 4 M blocks holds ~30 MB
// instead of ~130 MB.
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/container/byte_streams.h"
#include "frontend/container/chunk_codec.h"

namespace lockstep {

// A block's summary as the container codes it: its id (put_block_id), warps,
// warp instructions and segments - 1, each into its own stream (the
// KernelBlocks columns) or all into one (a packed row); `prev` is the id of
// the block before it and becomes this one's.
inline void put_block_summary(ByteSink& ids, ByteSink& warps, ByteSink& insts, ByteSink& segments, const BlockInfo& b,
                              Dim3& prev) {
  put_block_id(ids, b.id, prev);
  warps.u(b.warps);
  insts.u(b.warp_insts);
  segments.u(b.segments > 0 ? b.segments - 1 : 0);
}
inline BlockInfo get_block_summary(ByteSource& ids, ByteSource& warps, ByteSource& insts, ByteSource& segments,
                                   Dim3& prev) {
  BlockInfo b;
  b.id = get_block_id(ids, prev);
  b.warps = warps.u32();
  b.warp_insts = insts.u();
  const uint32_t more = segments.u32();
  if (more == UINT32_MAX) stream_fail(std::string(segments.name()) + " stream: value out of range");
  b.segments = more + 1;
  return b;
}

class PackedBlocks {
 public:
  void push_back(const BlockInfo& b) {
    if (size_ % kMarkBlocks == 0) marks_.push_back(Mark{rows_.bytes().size(), last_});
    put_block_summary(rows_, rows_, rows_, rows_, b, last_);
    ++size_;
  }
  // Room for `blocks` rows of `row_bytes` in all, so that filling does not copy.
  void reserve(size_t blocks, size_t row_bytes) {
    marks_.reserve(blocks / kMarkBlocks + 1);
    rows_.reserve(row_bytes);
  }
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Reads blocks in order from `ordinal` (<= size()), as many as there are.
  class Cursor {
   public:
    BlockInfo next() { return get_block_summary(in_, in_, in_, in_, prev_); }

   private:
    friend class PackedBlocks;
    Cursor(std::string_view rows, Dim3 prev) : in_(rows, "packed blocks"), prev_(prev) {}
    ByteSource in_;
    Dim3 prev_;
  };
  Cursor from(uint32_t ordinal) const {
    if (ordinal >= size_) return Cursor(std::string_view(), last_);  // at the end: nothing to read
    const Mark& m = marks_[ordinal / kMarkBlocks];
    Cursor c(std::string_view(rows_.bytes()).substr(m.offset), m.before);
    for (uint32_t skip = ordinal % kMarkBlocks; skip > 0; --skip) c.next();
    return c;
  }
  BlockInfo operator[](uint32_t ordinal) const { return from(ordinal).next(); }
  // Every block, unpacked (for tools and tests).
  std::vector<BlockInfo> unpacked() const {
    std::vector<BlockInfo> all;
    all.reserve(size_);
    if (size_ == 0) return all;
    Cursor c = from(0);
    for (uint32_t i = 0; i < size_; ++i) all.push_back(c.next());
    return all;
  }
  void shrink_to_fit() {
    marks_.shrink_to_fit();
    rows_.shrink_to_fit();
  }

 private:
  static constexpr uint32_t kMarkBlocks = 16;
  struct Mark {
    size_t offset;  // of the row of block k * kMarkBlocks
    Dim3 before;    // the id of the block before it
  };
  ByteSink rows_;
  std::vector<Mark> marks_;
  uint32_t size_ = 0;
  Dim3 last_{0, 0, 0};
};

}  // namespace lockstep
