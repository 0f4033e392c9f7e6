#pragma once
// An append-only array stored in fixed chunks of 2^kChunkBits elements: it
// grows by one chunk at a time, so it never holds a vector's spare capacity
// (up to as much again) nor, while growing, the old and the new copy at once.
// The abstract model keeps a whole kernel's paths and memory costs in these
// (sm_workload.h): they are what grows with the kernel. Indexing is a shift,
// a mask and two loads.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace lockstep {

template <typename T, unsigned kChunkBits = 10>
class ChunkedArray {
 public:
  static constexpr size_t kChunk = size_t(1) << kChunkBits;

  void push_back(const T& value) {
    if ((size_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunk));
    chunks_.back()[size_ & (kChunk - 1)] = value;
    ++size_;
  }
  const T& operator[](size_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() {
    chunks_.clear();
    size_ = 0;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace lockstep
