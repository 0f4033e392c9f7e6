#include "frontend/container/block_stream.h"

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
      chunk_count_(reader.chunk_count(kernel)) {
  thread_ = std::thread([this] { run(); });
}

BlockStream::~BlockStream() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  consumed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BlockStream::run() {
  for (uint32_t c = 0; c < chunk_count_; ++c) {
    std::vector<BlockTrace> chunk;
    {
      std::unique_lock lock(mu_);
      consumed_.wait(lock, [&] { return stop_ || ready_.size() < ahead_; });
      if (stop_) return;
      if (!spare_.empty()) {
        chunk = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    // The error crosses threads as a copy of its message: the exception
    // object itself never leaves this thread (sharing it through
    // std::exception_ptr relies on a reference count that thread sanitizers
    // cannot see into).
    Error err = Error::kNone;
    std::string message;
    try {
      reader_.read_chunk(kernel_, c, chunk);
    } catch (const TraceError& e) {
      err = Error::kTrace, message = e.what();
    } catch (const std::bad_alloc&) {
      err = Error::kBadAlloc;
    } catch (const std::exception& e) {
      err = Error::kOther, message = e.what();
    } catch (...) {
      err = Error::kOther, message = "unknown error while decoding";
    }
    if (err != Error::kNone) {
      std::lock_guard lock(mu_);
      error_ = err;
      error_message_ = std::move(message);
      done_ = true;
      produced_.notify_all();
      return;
    }
    std::lock_guard lock(mu_);
    ready_.push_back(std::move(chunk));
    produced_.notify_all();
  }
  std::lock_guard lock(mu_);
  done_ = true;
  produced_.notify_all();
}

bool BlockStream::advance() {
  if (finished_) return false;
  if (started_ && ++pos_ < current_.size()) return true;
  started_ = true;
  std::unique_lock lock(mu_);
  while (true) {
    // Hand the consumed chunk's storage back for decoding into.
    if (current_.capacity() > 0) spare_.push_back(std::move(current_));
    current_.clear();
    pos_ = 0;
    produced_.wait(lock, [&] { return !ready_.empty() || done_; });
    if (!ready_.empty()) {
      current_ = std::move(ready_.front());
      ready_.pop_front();
      consumed_.notify_all();
      if (!current_.empty()) return true;
      continue;
    }
    finished_ = true;
    switch (std::exchange(error_, Error::kNone)) {
      case Error::kNone:
        break;
      case Error::kTrace:
        throw TraceError(error_message_);
      case Error::kBadAlloc:
        throw std::bad_alloc();
      case Error::kOther:
        throw std::runtime_error(error_message_);
    }
    return false;
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
