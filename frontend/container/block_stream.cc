#include "frontend/container/block_stream.h"

#include <iterator>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "frontend/trace/trace_error.h"

namespace lockstep {

BlockStream::BlockStream(const ContainerReader& reader, uint32_t kernel, size_t chunks_ahead)
    : reader_(reader),
      kernel_(kernel),
      ahead_(chunks_ahead == 0 ? 1 : chunks_ahead),
      chunk_count_(reader.chunk_count(kernel)),
      storage_(reader.take_stream_storage()) {
  spare_ = std::move(storage_->chunks);
  storage_->chunks.clear();
  thread_ = std::thread([this] { run(); });
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
    std::vector<std::vector<BlockTrace>>& keep = storage_->chunks;
    const size_t cap = ahead_ + 2;
    auto give = [&](std::vector<BlockTrace>&& c) {
      if (keep.size() < cap && c.capacity() > 0) keep.push_back(std::move(c));
    };
    give(std::move(current_));
    for (auto& c : ready_) give(std::move(c.second));
    for (auto& c : spare_) give(std::move(c));
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

void BlockStream::put_ready(uint32_t c, std::vector<BlockTrace>&& chunk) {
  auto it = ready_.end();
  while (it != ready_.begin() && std::prev(it)->first > c) --it;
  ready_.emplace(it, c, std::move(chunk));
}

std::vector<BlockTrace> BlockStream::take_spare() {
  std::vector<BlockTrace> chunk;
  if (!spare_.empty()) {
    chunk = std::move(spare_.back());
    spare_.pop_back();
  }
  return chunk;
}

void BlockStream::run() {
  while (true) {
    uint32_t c = 0;
    std::vector<BlockTrace> chunk;
    {
      std::unique_lock lock(mu_);
      consumed_.wait(lock, [&] { return stop_ || ready_.size() < ahead_; });
      if (stop_ || next_claim_ >= chunk_count_) return;
      c = next_claim_++;
      chunk = take_spare();
    }
    std::string message;
    const Caught err = decode_catching([&] { reader_.read_chunk(kernel_, c, chunk, storage_->scratch); }, message);
    std::lock_guard lock(mu_);
    if (err != Caught::kNone)
      fail_chunk(c, int(err), std::move(message));
    else
      put_ready(c, std::move(chunk));
    produced_.notify_all();
  }
}

bool BlockStream::advance() {
  if (finished_) return false;
  if (started_ && ++pos_ < current_.size()) return true;
  started_ = true;
  std::unique_lock lock(mu_);
  while (true) {
    if (want_ >= chunk_count_) {
      finished_ = true;
      return false;
    }
    pos_ = 0;
    if (!ready_.empty() && ready_.front().first == want_) {
      // Hand the consumed chunk's storage back for decoding into.
      if (current_.capacity() > 0) spare_.push_back(std::move(current_));
      current_ = std::move(ready_.front().second);
      ready_.pop_front();
      consumed_.notify_all();
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
      // Neither decoded nor being decoded: decode it here, into the storage
      // of the chunk just consumed, rather than wait for the helper.
      ++next_claim_;
      lock.unlock();
      std::string message;
      const Caught err = decode_catching([&] { reader_.read_chunk(kernel_, want_, current_); }, message);
      lock.lock();
      if (err != Caught::kNone) {
        fail_chunk(want_, int(err), std::move(message));
        continue;  // thrown above, in order
      }
      ++want_;
      if (!current_.empty()) return true;
      continue;
    }
    if (next_claim_ < chunk_count_ && ready_.size() < ahead_) {
      // The helper is on the wanted chunk: decode a later one meanwhile.
      const uint32_t c = next_claim_++;
      std::vector<BlockTrace> chunk = take_spare();
      lock.unlock();
      std::string message;
      const Caught err = decode_catching([&] { reader_.read_chunk(kernel_, c, chunk); }, message);
      lock.lock();
      if (err != Caught::kNone)
        fail_chunk(c, int(err), std::move(message));
      else
        put_ready(c, std::move(chunk));
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
  return true;
}

}  // namespace lockstep
