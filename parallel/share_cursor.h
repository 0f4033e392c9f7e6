#pragma once
// The pieces of one thread's share of a core cycle (ARCHITECTURE §5), claimed
// from both ends: the owner takes them from the front, in chunks while many
// are left; a thread done with its own share helps by taking single pieces
// from the back. Each piece is claimed exactly once, by one atomic step.
//
// Helpers take the share's last pieces, so while an imbalance lasts (a slower
// core, a busier cluster) they take the same pieces cycle after cycle, and a
// cluster that moves keeps its state in the helper's cache instead of going
// back and forth. Chunks spare the owner most of the atomic steps, each of
// which waits for the core's pending stores.
#include <algorithm>
#include <atomic>
#include <cstdint>

namespace lockstep {

class alignas(64) ShareCursor {
 public:
  // A new cycle: pieces [0, pieces) are unclaimed. Between cycles only.
  void reset(uint32_t pieces) { word_.store(pack(0, pieces), std::memory_order_relaxed); }

  // Owner: claims pieces [first, end) from the front; false when none is left.
  bool claim_front(uint32_t& first, uint32_t& end) {
    uint64_t w = word_.load(std::memory_order_relaxed);
    if (front(w) >= back(w)) return false;
    const uint32_t chunk = std::max(1u, (back(w) - front(w)) / kChunkDivisor);
    w = word_.fetch_add(chunk, std::memory_order_relaxed);  // front only: it stays below 2^32
    if (front(w) >= back(w)) return false;
    first = front(w);
    end = std::min(front(w) + chunk, back(w));
    return true;
  }

  // Helper: claims one piece from the back; false when none is left.
  bool claim_back(uint32_t& piece) {
    uint64_t w = word_.load(std::memory_order_relaxed);
    while (front(w) < back(w)) {
      if (word_.compare_exchange_weak(w, w - (uint64_t(1) << 32), std::memory_order_relaxed)) {
        piece = back(w) - 1;
        return true;
      }
    }
    return false;
  }

 private:
  // The owner's chunk: this fraction of what is left (at least one piece), so
  // near the end, where helpers arrive, it takes one piece at a time.
  static constexpr uint32_t kChunkDivisor = 4;
  static uint64_t pack(uint32_t front, uint32_t back) { return uint64_t(back) << 32 | front; }
  static uint32_t front(uint64_t w) { return uint32_t(w); }
  static uint32_t back(uint64_t w) { return uint32_t(w >> 32); }

  std::atomic<uint64_t> word_{0};  // low half: next front piece; high half: one past the last unclaimed
};

}  // namespace lockstep
