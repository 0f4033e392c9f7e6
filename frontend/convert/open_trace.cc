#include "frontend/convert/open_trace.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "frontend/container/block_stream.h"
#include "frontend/container/container_reader.h"
#include "frontend/container/format.h"
#include "frontend/container/segment_feed.h"
#include "frontend/text/text_trace_source.h"

namespace lockstep {
namespace {

class ContainerBlockCursor : public BlockCursor {
 public:
  ContainerBlockCursor(const ContainerReader& reader, uint32_t kernel) : stream_(reader, kernel) {}
  ContainerBlockCursor(const ContainerReader& reader, uint32_t kernel, size_t chunks_ahead, BlockStream::Ahead ahead,
                       uint32_t first_blocks, BlockParts parts)
      : stream_(reader, kernel, chunks_ahead, ahead, first_blocks,
                parts == BlockParts::kWhole ? ContainerReader::Parts::kWhole : ContainerReader::Parts::kFirstSegment) {
    if (parts == BlockParts::kFirstSegment && reader.segment_insts(kernel) != 0)
      feed_ = std::make_unique<SegmentFeed>(reader, kernel);
  }
  bool next(BlockTrace& out) override {
    if (!stream_.next(out)) return false;
    if (feed_) feed_->handed_out(out.ordinal + 1);
    return true;
  }
  BlockSegments* segments() override { return feed_.get(); }

 private:
  std::unique_ptr<SegmentFeed> feed_;
  BlockStream stream_;
};

class ContainerTraceSource : public TraceSource {
  static constexpr size_t kChunksAheadOfDispatch = 1;

 public:
  ContainerTraceSource(const std::filesystem::path& path, const WarningHandler& warn, PartialTraces partial)
      : reader_(path) {
    std::vector<std::string> found;
    for (const std::string& f : reader_.partial_trace()) found.push_back(path.string() + ": converted from " + f);
    partial_trace_ = check_partial(std::move(found), partial, warn);
  }
  const TraceManifest& manifest() const override { return reader_.manifest(); }
  const StaticTable& static_table(uint32_t kernel) override { return reader_.kernel_table(kernel); }
  std::unique_ptr<BlockCursor> open_blocks(uint32_t kernel) override {
    return std::make_unique<ContainerBlockCursor>(reader_, kernel);
  }
  // The chunks that hold the first wave wait decoded; after it, one chunk
  // ahead of the one being dispatched (a chunk holds many blocks, each
  // taking many cycles to simulate, and decodes far faster): what waits
  // decoded stays one wave and a chunk, whatever the trace's length.
  std::unique_ptr<BlockCursor> open_blocks_ahead(uint32_t kernel, uint32_t first_wave, BlockParts parts) override {
    return std::make_unique<ContainerBlockCursor>(reader_, kernel, kChunksAheadOfDispatch, BlockStream::Ahead::kAtOnce,
                                                  first_wave, parts);
  }
  // From the index: no block is decoded.
  KernelSummary summarize(uint32_t kernel) override {
    KernelSummary s;
    const KernelTotals& t = reader_.totals(kernel);
    s.blocks = reader_.block_count(kernel);
    s.warps = t.warps;
    s.warp_insts = t.warp_insts;
    s.mem_insts = t.mem_insts;
    s.thread_insts = t.thread_insts;
    const StaticTable& table = reader_.kernel_table(kernel);
    for (uint32_t op = 0; op < t.opcode_counts.size(); ++op) s.opcode_counts.emplace_back(table.opcode(op), t.opcode_counts[op]);
    return s;
  }
  std::optional<uint64_t> indexed_warp_insts(uint32_t kernel) override { return reader_.totals(kernel).warp_insts; }
  std::vector<std::string> partial_trace() const override { return partial_trace_; }

 private:
  ContainerReader reader_;
  std::vector<std::string> partial_trace_;
};

}  // namespace

bool is_container_file(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof container::kHeadMagic] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == sizeof magic && std::memcmp(magic, container::kHeadMagic, sizeof magic) == 0;
}

std::unique_ptr<TraceSource> open_trace(const std::filesystem::path& path, WarningHandler warn, PartialTraces partial) {
  if (is_container_file(path) || path.extension() == ".lst")
    return std::make_unique<ContainerTraceSource>(path, warn, partial);
  return std::make_unique<TextTraceSource>(path, std::move(warn), partial);
}

}  // namespace lockstep
