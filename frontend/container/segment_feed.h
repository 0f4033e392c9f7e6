#pragma once
// BlockSegments of a container's kernel: a block's segment k is read when it
// is first asked for, by decoding the chunk that holds segment k of its whole
// group; of the group's other blocks, those already handed out whose next
// segment this is keep it, decoded, until they ask (the others read it again
// when they ask: blocks of a group may run far apart). So what waits decoded
// is at most one segment per block held, whatever the blocks' lengths.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "frontend/container/container_reader.h"
#include "frontend/trace/block_segments.h"

namespace lockstep {

class SegmentFeed : public BlockSegments {
 public:
  SegmentFeed(const ContainerReader& reader, uint32_t kernel)
      : reader_(reader), kernel_(kernel), index_(reader.block_index(kernel)) {}
  void take(uint32_t ordinal, uint32_t segment, BlockTrace& out) noexcept override;
  // Blocks [0, n) have been handed out (their first segments).
  void handed_out(uint32_t n) { handed_out_.store(n, std::memory_order_release); }
  // Segments decoded and not yet taken (for tests).
  size_t waiting() {
    std::lock_guard lock(mu_);
    return parked_.size();
  }

 private:
  static uint64_t key(uint32_t ordinal, uint32_t segment) { return uint64_t(ordinal) << 32 | segment; }

  const ContainerReader& reader_;
  const uint32_t kernel_;
  const std::shared_ptr<const KernelBlockIndex> index_;  // held while the kernel's segments are read
  std::mutex mu_;
  ChunkScratch scratch_;
  std::vector<BlockTrace> decoded_;
  std::unordered_map<uint64_t, BlockTrace> parked_;
  std::atomic<uint32_t> handed_out_{0};
  // Per block: the last segment it took while it reads segments, and once it
  // took its last, a bit (blocks that took none are in neither).
  std::unordered_map<uint32_t, uint32_t> taken_;
  std::vector<bool> done_;
};

}  // namespace lockstep
