#pragma once
// Streams the blocks of one kernel in order. The consumer decodes chunks in
// line until it shows work of its own (a fair share of a chunk's decoding time
// spent on each chunk); then a helper thread decodes the next chunks ahead: at
// most `chunks_ahead` decoded chunks wait, plus the ones being decoded (one per
// thread) and the one being consumed. A consumer that finds the next chunk
// neither decoded nor claimed by the helper decodes it itself, and one that
// finds the helper busy with it decodes a later chunk meanwhile, so it never
// idles behind the hand-off; a slow consumer just finds the chunks ready.
// Decoding errors, on either thread, are rethrown from next() once the blocks
// before them are consumed (TraceError as TraceError with the same message,
// std::bad_alloc as is, anything else as std::runtime_error); the stream then
// stays ended.
// Destroying the stream early stops and joins the helper. The helper decodes
// with storage borrowed from the reader (ContainerReader::take_stream_storage)
// and the stream hands it back when it ends, decoded chunks' vectors included,
// so streams after the first neither allocate nor touch fresh memory. The
// helper, once ahead, sleeps until half of the waiting chunks are consumed
// (one wake-up, a system call, per chunks_ahead / 2 chunks).
// A stream opened ahead for a kernel launch (first_blocks > 0) decodes until
// the chunks taken and waiting hold first_blocks blocks (the launch's first
// wave); after that the helper decodes the next chunk only once the blocks
// left to hand out (in the chunk being consumed and the ones waiting) are
// fewer than first_blocks / 8 (at least one), one chunk at a time. Decoded
// blocks can be large (a hundred KB and more each): what waits decoded beyond
// the blocks the SMs hold stays about one chunk, whatever the trace's length.
// For the same reason next(BlockTrace&) releases the storage it takes back
// when it is large (kKeptBlockBytes) instead of keeping it for decoding.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "frontend/container/container_reader.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

class BlockStream {
 public:
  // When the consumer will take every block soon (the simulator), `ahead`
  // kAtOnce starts the helper at once instead of after the consumer has shown
  // work of its own, so that a stream opened before it is needed has its
  // first chunks ready.
  enum class Ahead { kWhenWorthIt, kAtOnce };
  // `parts`: whole blocks, or only their first segments (a consumer that
  // reads the others as it needs them, through ContainerReader::read_segment).
  // "Chunks" below are groups of blocks (ContainerReader::read_group).
  BlockStream(const ContainerReader& reader, uint32_t kernel, size_t chunks_ahead = 4,
              Ahead ahead = Ahead::kWhenWorthIt, uint32_t first_blocks = 0,
              ContainerReader::Parts parts = ContainerReader::Parts::kWhole);
  ~BlockStream();
  BlockStream(const BlockStream&) = delete;
  BlockStream& operator=(const BlockStream&) = delete;

  // The next block, valid until the next call; nullptr at the end.
  const BlockTrace* next();
  // Swaps the next block into `out` (out's old storage is recycled); false at the end.
  bool next(BlockTrace& out);

  uint32_t kernel() const { return kernel_; }
  uint32_t blocks_returned() const { return returned_; }
  // Chunks either thread has started decoding so far (for tests of the look-ahead).
  uint32_t chunks_claimed() {
    std::lock_guard lock(mu_);
    return next_claim_;
  }

 private:
  void run();
  void start_helper();  // the decoding helper on its thread, if the system can start one
  bool advance();  // makes current_[pos_] the next block; false at the end
  // Chunk storage belongs to the thread that decodes into it (kHelper or
  // kConsumer) and goes back to that thread's spares once consumed.
  enum Owner { kHelper = 0, kConsumer = 1 };
  struct Chunk {
    uint32_t index = 0;
    Owner owner = kHelper;
    std::vector<BlockTrace> blocks;
  };
  // With mu_ held:
  bool wants_more() const {  // the helper decodes another chunk
    if (first_blocks_ == 0) return ready_.size() < ahead_;
    return taken_blocks_ + ready_blocks_ < first_blocks_ || (ready_.empty() && current_low_);
  }
  void fail_chunk(uint32_t c, int kind, std::string&& message);
  void put_ready(Chunk&& chunk);  // keeps ready_ in chunk order
  std::vector<BlockTrace> take_spare(Owner owner);
  void give_spare(Owner owner, std::vector<BlockTrace>&& blocks);

  const ContainerReader& reader_;
  const uint32_t kernel_;
  const ContainerReader::Parts parts_;
  const size_t ahead_;
  const uint64_t first_blocks_;
  const uint64_t refill_at_;  // first_blocks_ > 0: blocks left that make the helper decode the next chunk
  const std::shared_ptr<const KernelBlockIndex> index_;  // held while the stream lives: read once
  const uint32_t chunk_count_;
  std::unique_ptr<ContainerReader::StreamStorage> storage_;  // scratch[kHelper]: helper only; [kConsumer]: consumer only

  std::mutex mu_;
  std::condition_variable produced_;
  std::condition_variable consumed_;
  uint32_t next_claim_ = 0;  // the first chunk neither thread has taken on
  std::deque<Chunk> ready_;  // decoded, not yet consumed, in order
  uint64_t ready_blocks_ = 0;  // blocks in ready_
  uint64_t taken_blocks_ = 0;  // blocks in the chunks the consumer took from ready_
  bool current_low_ = false;   // the consumer's chunk has fewer than refill_at_ blocks left
  std::vector<std::vector<BlockTrace>> spare_[2];  // consumed chunks' storage, by owner
  size_t created_[2] = {0, 0};  // chunk storage each owner started afresh in this stream
  static constexpr size_t kConsumerChunks = 2;
  enum class Error { kNone, kTrace, kBadAlloc, kOther };
  Error error_ = Error::kNone;  // decoding chunk error_chunk_ failed; nothing after it is claimed
  uint32_t error_chunk_ = 0;
  std::string error_message_;
  bool stop_ = false;

  // Consumer side only.
  static constexpr size_t kKeptBlockBytes = size_t(8) << 10;  // recycled block storage kept up to this size
  static constexpr size_t kKeptChunkBytes = size_t(256) << 10;  // a chunk's storage kept for the next stream up to this size
  void note_blocks_left();   // tells the helper when the chunk being consumed runs low
  using Clock = std::chrono::steady_clock;
  static constexpr double kHelperWorthIt = 4;  // start it when consuming a chunk takes > 1/4 of decoding it
  Clock::time_point handed_at_;  // when the consumer got the chunk it decoded last
  double last_decode_s_ = 0;     // how long that took to decode
  std::vector<BlockTrace> current_;
  Owner current_owner_ = kConsumer;
  uint32_t want_ = 0;  // the chunk to consume next
  size_t pos_ = 0;
  bool started_ = false;
  bool finished_ = false;
  uint32_t returned_ = 0;

  std::thread thread_;  // last: started once everything above exists
};

}  // namespace lockstep
