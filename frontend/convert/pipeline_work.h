#pragma once
// What the conversion pipelines (convert_text_trace, repack_container) share:
// a fixed pool of work items, one per oneTBB pipeline token, so that nothing
// leaks when a stage throws and buffers are reused from item to item; the
// writing of a group's encoded chunks with the report's counts; and the
// commit that closes the report.
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "frontend/container/chunk_codec.h"
#include "frontend/container/container_writer.h"
#include "frontend/convert/converter.h"

namespace lockstep {

// `Work` has reset(), called when an item comes back, to drop what must not
// carry over to its next use.
template <class Work>
class WorkPool {
 public:
  explicit WorkPool(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      items_.push_back(std::make_unique<Work>());
      free_.push_back(items_.back().get());
    }
  }
  Work* acquire() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) throw std::logic_error("convert: more items in flight than pipeline tokens");
    Work* w = free_.back();
    free_.pop_back();
    return w;
  }
  void release(Work* w) {
    w->reset();
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(w);
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<Work>> items_;
  std::vector<Work*> free_;
};

// Writes a group's chunks (`blocks` blocks) in order and counts them into `report`.
inline void write_group(ContainerWriter& writer, std::vector<EncodedChunk>& chunks, size_t blocks,
                        ConvertReport& report) {
  report.blocks += blocks;
  for (EncodedChunk& c : chunks) {
    report.warp_insts += c.warp_insts;
    ++report.chunks;
    writer.add_chunk(std::move(c));
  }
}

// Commits the container and fills in the report's output size and time since `start`.
inline void commit_report(ContainerWriter& writer, std::chrono::steady_clock::time_point start, ConvertReport& report) {
  writer.commit();
  report.output_bytes = writer.bytes_written();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace lockstep
