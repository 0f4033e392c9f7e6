#pragma once
// Keeps the heap blocks of units built one after another (the SMs, their L1
// data caches, their ports) off each other's cache lines. The allocator
// carves blocks allocated in a row from adjacent memory, so the last block
// of one unit and the first of the next can share a cache line; when the
// two units run on different threads (round-robin partition: neighbouring
// SMs always do) every write to either makes that line move between cores
// (false sharing). A unit's builder calls separate() between units: a
// block of a few cache lines is allocated and kept, so the next unit's
// blocks start beyond it. Measured on gemm 10M with 2 threads
// (bench/README.md). It changes no result.
#include <cstddef>
#include <memory>
#include <vector>

namespace lockstep {

class HeapSeparator {
 public:
  void separate() { blocks_.push_back(std::make_unique<char[]>(kBytes)); }

 private:
  static constexpr size_t kBytes = 256;
  std::vector<std::unique_ptr<char[]>> blocks_;
};

}  // namespace lockstep
