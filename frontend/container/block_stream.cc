#include "frontend/container/block_stream.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "frontend/trace/trace_error.h"

namespace lockstep {

BlockStream::BlockStream(const ContainerReader& reader, uint32_t kernel, size_t chunks_ahead, Ahead ahead,
                         uint32_t first_blocks, ContainerReader::Parts parts)
    : reader_(reader),
      kernel_(kernel),
      parts_(parts),
      ahead_(chunks_ahead == 0 ? 1 : chunks_ahead),
      first_blocks_(first_blocks),
      refill_at_(std::max<uint64_t>(first_blocks / 8, 1)),
      index_(reader.block_index(kernel)),
      chunk_count_(uint32_t(index_->groups.size())),
      storage_(reader.take_stream_storage()) {
  for (int o : {kHelper, kConsumer}) {
    spare_[o] = std::move(storage_->chunks[o]);
    storage_->chunks[o].clear();
  }
  // Otherwise the helper starts once the consumer shows it has work of its own (advance()).
  if (ahead == Ahead::kAtOnce && chunk_count_ > 0) start_helper();
}

void BlockStream::start_helper() {
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread to spare: the consumer decodes every chunk itself (advance()).
  }
}

BlockStream::~BlockStream() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  consumed_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Everything decoded goes back to the reader for the next stream.
  try {
    const size_t cap = ahead_ + 2;
    // Kept only up to kKeptChunkBytes each: what the next stream reuses
    // must not make memory follow the largest grid seen.
    auto give = [&](Owner o, std::vector<BlockTrace>&& c) {
      size_t bytes = c.capacity() * sizeof(BlockTrace);
      for (const BlockTrace& b : c) bytes += storage_bytes(b);
      if (storage_->chunks[o].size() < cap && c.capacity() > 0 && bytes <= kKeptChunkBytes)
        storage_->chunks[o].push_back(std::move(c));
    };
    give(current_owner_, std::move(current_));
    for (Chunk& c : ready_) give(c.owner, std::move(c.blocks));
    for (Owner o : {kHelper, kConsumer})
      for (auto& c : spare_[o]) give(o, std::move(c));
    reader_.give_stream_storage(std::move(storage_));
  } catch (...) {
    // Out of memory while pooling: the storage is simply freed.
  }
}

namespace {

enum class Caught { kNone, kTrace, kBadAlloc, kOther };

// Runs `decode`; an error comes back as its kind and a copy of its message:
// the exception object itself never leaves this thread (sharing it through
// std::exception_ptr relies on a reference count that thread sanitizers
// cannot see into).
template <class F>
Caught decode_catching(F&& decode, std::string& message) {
  try {
    decode();
    return Caught::kNone;
  } catch (const TraceError& e) {
    message = e.what();
    return Caught::kTrace;
  } catch (const std::bad_alloc&) {
    return Caught::kBadAlloc;
  } catch (const std::exception& e) {
    message = e.what();
    return Caught::kOther;
  } catch (...) {
    message = "unknown error while decoding";
    return Caught::kOther;
  }
}

}  // namespace

void BlockStream::fail_chunk(uint32_t c, int kind, std::string&& message) {
  // The earliest failing chunk wins; nothing after it is worth decoding.
  if (error_ == Error::kNone || c < error_chunk_) {
    error_ = Error(kind);
    error_chunk_ = c;
    error_message_ = std::move(message);
  }
  next_claim_ = chunk_count_;
}

void BlockStream::put_ready(Chunk&& chunk) {
  ready_blocks_ += chunk.blocks.size();
  auto it = ready_.end();
  while (it != ready_.begin() && std::prev(it)->index > chunk.index) --it;
  ready_.insert(it, std::move(chunk));
}

std::vector<BlockTrace> BlockStream::take_spare(Owner owner) {
  std::vector<BlockTrace> blocks;
  if (!spare_[owner].empty()) {
    blocks = std::move(spare_[owner].back());
    spare_[owner].pop_back();
  } else {
    ++created_[owner];
  }
  return blocks;
}

void BlockStream::give_spare(Owner owner, std::vector<BlockTrace>&& blocks) {
  if (blocks.capacity() > 0) spare_[owner].push_back(std::move(blocks));
}

void BlockStream::run() {
  ChunkScratch& scratch = storage_->scratch[kHelper];
  while (true) {
    Chunk chunk;
    {
      std::unique_lock lock(mu_);
      consumed_.wait(lock, [&] { return stop_ || wants_more(); });
      if (stop_ || next_claim_ >= chunk_count_) return;
      chunk.index = next_claim_++;
      chunk.blocks = take_spare(kHelper);
    }
    std::string message;
    const Caught err =
        decode_catching([&] { reader_.read_group(kernel_, chunk.index, chunk.blocks, scratch, parts_); }, message);
    std::lock_guard lock(mu_);
    if (err != Caught::kNone) {
      fail_chunk(chunk.index, int(err), std::move(message));
      give_spare(kHelper, std::move(chunk.blocks));
    } else {
      put_ready(std::move(chunk));
    }
    produced_.notify_all();
  }
}

void BlockStream::note_blocks_left() {
  {
    std::lock_guard lock(mu_);
    current_low_ = true;
  }
  consumed_.notify_all();
}

bool BlockStream::advance() {
  if (finished_) return false;
  if (started_ && ++pos_ < current_.size()) {
    if (first_blocks_ > 0 && current_.size() - pos_ == refill_at_) note_blocks_left();
    return true;
  }
  started_ = true;
  ChunkScratch& scratch = storage_->scratch[kConsumer];
  if (!thread_.joinable() && want_ > 0 && want_ + 1 < chunk_count_) {
    // Decoding ahead pays when the consumer spends a fair share of a chunk's
    // decoding time on each chunk; a consumer that only skims the blocks is
    // served as fast by decoding in line, with one chunk's memory instead of
    // several (what a short trace pays for in full).
    const double consumed = std::chrono::duration<double>(Clock::now() - handed_at_).count();
    if (consumed * kHelperWorthIt > last_decode_s_) start_helper();
  }
  std::unique_lock lock(mu_);
  while (true) {
    if (want_ >= chunk_count_) {
      finished_ = true;
      return false;
    }
    pos_ = 0;
    if (!ready_.empty() && ready_.front().index == want_) {
      // Hand the consumed chunk's storage back for decoding into.
      give_spare(current_owner_, std::move(current_));
      current_ = std::move(ready_.front().blocks);
      current_owner_ = ready_.front().owner;
      ready_blocks_ -= current_.size();
      taken_blocks_ += current_.size();
      current_low_ = current_.size() <= refill_at_;
      ready_.pop_front();
      // The helper, asleep while ahead_ chunks wait, is woken only once half
      // of them are gone: a wake-up is a system call, and this way it comes
      // once per ahead_ / 2 chunks instead of once per chunk.
      if (ready_.size() <= ahead_ / 2) consumed_.notify_all();
      ++want_;
      if (!current_.empty()) return true;
      continue;
    }
    if (error_ != Error::kNone && error_chunk_ == want_) {
      finished_ = true;
      switch (std::exchange(error_, Error::kNone)) {
        case Error::kTrace:
          throw TraceError(error_message_);
        case Error::kBadAlloc:
          throw std::bad_alloc();
        default:
          throw std::runtime_error(error_message_);
      }
    }
    if (next_claim_ == want_) {
      // Neither decoded nor being decoded: decode it here rather than wait
      // for the helper, into the consumed chunk's storage if it is ours.
      ++next_claim_;
      if (current_owner_ != kConsumer || current_.capacity() == 0) {
        give_spare(current_owner_, std::move(current_));
        current_ = take_spare(kConsumer);
        current_owner_ = kConsumer;
      }
      lock.unlock();
      std::string message;
      const auto t0 = Clock::now();
      const Caught err = decode_catching([&] { reader_.read_group(kernel_, want_, current_, scratch, parts_); }, message);
      handed_at_ = Clock::now();
      last_decode_s_ = std::chrono::duration<double>(handed_at_ - t0).count();
      lock.lock();
      if (err != Caught::kNone) {
        fail_chunk(want_, int(err), std::move(message));
        continue;  // thrown above, in order
      }
      taken_blocks_ += current_.size();
      current_low_ = current_.size() <= refill_at_;
      ++want_;
      if (!current_.empty()) return true;
      continue;
    }
    if (next_claim_ < chunk_count_ && ready_.size() < ahead_ &&
        (!spare_[kConsumer].empty() || created_[kConsumer] < kConsumerChunks)) {
      // The helper is on the wanted chunk: decode a later one meanwhile
      // (into at most two chunks' storage of our own: memory the stream
      // touches is what a short trace pays for).
      Chunk chunk;
      chunk.index = next_claim_++;
      chunk.owner = kConsumer;
      chunk.blocks = take_spare(kConsumer);
      lock.unlock();
      std::string message;
      const Caught err =
          decode_catching([&] { reader_.read_group(kernel_, chunk.index, chunk.blocks, scratch, parts_); }, message);
      lock.lock();
      if (err != Caught::kNone) {
        fail_chunk(chunk.index, int(err), std::move(message));
        give_spare(kConsumer, std::move(chunk.blocks));
      } else {
        put_ready(std::move(chunk));
      }
      continue;
    }
    produced_.wait(lock);
  }
}

const BlockTrace* BlockStream::next() {
  if (!advance()) return nullptr;
  ++returned_;
  return &current_[pos_];
}

bool BlockStream::next(BlockTrace& out) {
  if (!advance()) return false;
  ++returned_;
  std::swap(out, current_[pos_]);
  release_if_large(current_[pos_], kKeptBlockBytes);
  return true;
}

}  // namespace lockstep
