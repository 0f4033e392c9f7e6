#pragma once
// Streams the blocks of one kernel in order while a helper thread decodes the
// next chunks into a bounded queue: at most `chunks_ahead` decoded chunks wait,
// plus the one being decoded and the one being consumed. Errors on the helper
// thread are rethrown from next() once the blocks before them are consumed
// (TraceError as TraceError with the same message, std::bad_alloc as is,
// anything else as std::runtime_error).
// Destroying the stream early stops and joins the helper.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

#include "frontend/container/container_reader.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

class BlockStream {
 public:
  BlockStream(const ContainerReader& reader, uint32_t kernel, size_t chunks_ahead = 4);
  ~BlockStream();
  BlockStream(const BlockStream&) = delete;
  BlockStream& operator=(const BlockStream&) = delete;

  // The next block, valid until the next call; nullptr at the end.
  const BlockTrace* next();
  // Swaps the next block into `out` (out's old storage is recycled); false at the end.
  bool next(BlockTrace& out);

  uint32_t kernel() const { return kernel_; }
  uint32_t blocks_returned() const { return returned_; }

 private:
  void run();
  bool advance();  // makes current_[pos_] the next block; false at the end

  const ContainerReader& reader_;
  const uint32_t kernel_;
  const size_t ahead_;
  const uint32_t chunk_count_;

  std::mutex mu_;
  std::condition_variable produced_;
  std::condition_variable consumed_;
  std::deque<std::vector<BlockTrace>> ready_;  // decoded chunks, in order
  std::vector<std::vector<BlockTrace>> spare_;  // consumed chunks, storage for reuse
  enum class Error { kNone, kTrace, kBadAlloc, kOther };
  Error error_ = Error::kNone;  // set with done_
  std::string error_message_;
  bool done_ = false;  // helper finished (all chunks queued, or error_ set)
  bool stop_ = false;

  // Consumer side only.
  std::vector<BlockTrace> current_;
  size_t pos_ = 0;
  bool started_ = false;
  bool finished_ = false;
  uint32_t returned_ = 0;

  std::thread thread_;  // last: started once everything above exists
};

}  // namespace lockstep
