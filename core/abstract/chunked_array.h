#pragma once
// An append-only array stored in fixed chunks of 2^kChunkBits elements: it
// grows by one chunk at a time, so it never holds a vector's spare capacity
// (up to as much again) nor, while growing, the old and the new copy at once.
// A reader done with a prefix gives its chunks back (release_before); indices
// stay those of the whole array. The abstract model keeps a kernel's
// blocks, warps, paths and memory costs in these (sm_workload.h): read as
// the SMs go, they hold the part not yet timed. Indexing is a shift, a
// subtraction, a mask and two loads.
#include <cstddef>
#include <cstdint>
#include <vector>
#include <memory>

namespace lockstep {

template <typename T, unsigned kChunkBits = 10>
class ChunkedArray {
 public:
  static constexpr size_t kChunk = size_t(1) << kChunkBits;

  ChunkedArray() = default;
  ChunkedArray(ChunkedArray&&) = default;
  ChunkedArray& operator=(ChunkedArray&&) = default;
  ChunkedArray(const ChunkedArray&) = delete;  // (a kernel's worth: moved, never copied)
  ChunkedArray& operator=(const ChunkedArray&) = delete;

  void push_back(const T& value) {
    if ((size_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunk));
    chunks_.back()[size_ & (kChunk - 1)] = value;
    ++size_;
  }
  // Element i (i >= released(), i < size()).
  T& operator[](size_t i) { return chunks_[(i >> kChunkBits) - erased_][i & (kChunk - 1)]; }
  const T& operator[](size_t i) const { return chunks_[(i >> kChunkBits) - erased_][i & (kChunk - 1)]; }
  T& back() { return (*this)[size_ - 1]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The reader needs no element before `i` any more: the chunks wholly
  // before it are freed (indices do not change).
  void release_before(size_t i) {
    const size_t chunk = (i < size_ ? i : size_) >> kChunkBits;
    if (chunk <= first_chunk_) return;
    for (size_t c = first_chunk_; c < chunk; ++c) chunks_[c - erased_].reset();
    first_chunk_ = chunk;
    // The freed chunks' slots go once they are as many as the others (each
    // slot moves a bounded number of times on average).
    if (first_chunk_ - erased_ > chunks_.size() / 2) {
      chunks_.erase(chunks_.begin(), chunks_.begin() + long(first_chunk_ - erased_));
      erased_ = first_chunk_;
    }
  }
  // Elements before this index may have been freed.
  size_t released() const { return first_chunk_ << kChunkBits; }
  void clear() {
    chunks_.clear();
    size_ = 0;
    first_chunk_ = erased_ = 0;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;  // chunk c at chunks_[c - erased_]
  size_t size_ = 0;
  size_t first_chunk_ = 0;  // chunks before this one are freed
  size_t erased_ = 0;       // chunks before this one have no slot in chunks_ either
};

}  // namespace lockstep
