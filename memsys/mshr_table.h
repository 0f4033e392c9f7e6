#pragma once
// Miss-status holding registers: the sectors a cache has asked the next level
// for and not yet received, each with the requests waiting for it
// (papers/accel-sim.txt §II-B; volta-memory-system.txt §III-C). A miss to a
// sector already outstanding merges into its entry instead of sending a
// second request, up to `max_merge` waiters per entry; `entries` sectors may
// be outstanding at once.
//
// Waiter is the owner's record of a waiting request: the L2 keeps MemPackets,
// the L1 its 32-bit access tokens. Storage is fixed at construction (entries x
// max_merge waiters and an open-addressed index of the sector addresses), so
// misses and fills never allocate. Lookups never iterate in an
// address-dependent order; waiters come back in arrival order.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "memsys/zeroed_array.h"

namespace lockstep {

template <typename Waiter>
class MshrTable {
 public:
  MshrTable(uint32_t entries, uint32_t max_merge)
      : entries_(entries), max_merge_(max_merge) {
    if (entries == 0 || max_merge == 0) throw std::invalid_argument("MshrTable: entries and max_merge must be >= 1");
    slots_ = ZeroedArray<Slot>(entries);
    waiters_ = ZeroedArray<Waiter>(size_t(entries) * max_merge);
    // Index at most half full: short probe sequences.
    index_.assign(std::bit_ceil(size_t(entries) * 2), kEmpty);
    free_.reserve(entries);
    for (uint32_t i = entries; i-- > 0;) free_.push_back(i);  // hand out slot 0 first
  }

  uint32_t capacity() const { return entries_; }
  uint32_t max_merge() const { return max_merge_; }
  uint32_t size() const { return entries_ - uint32_t(free_.size()); }
  bool empty() const { return free_.size() == entries_; }
  bool full() const { return free_.empty(); }

  // An entry for this sector is outstanding.
  bool probe(uint64_t addr) const { return find(addr) != kEmpty; }
  // A new entry could be allocated for addr (none outstanding, one free).
  bool can_allocate(uint64_t addr) const { return !full() && !probe(addr); }
  // addr is outstanding and its entry has room for one more waiter.
  bool can_merge(uint64_t addr) const {
    const uint32_t s = find(addr);
    return s != kEmpty && slots_[s].count < max_merge_;
  }

  // Open an entry for addr with its first waiter; false (and no change) when
  // addr is already outstanding or every entry is in use.
  bool allocate(uint64_t addr, const Waiter& waiter) {
    if (!can_allocate(addr)) return false;
    const uint32_t s = free_.back();
    free_.pop_back();
    slots_[s] = Slot{addr, 1};
    waiters_[size_t(s) * max_merge_] = waiter;
    insert(addr, s);
    return true;
  }
  // Add a waiter to addr's entry; false (and no change) when absent or full.
  bool merge(uint64_t addr, const Waiter& waiter) {
    const uint32_t s = find(addr);
    if (s == kEmpty || slots_[s].count >= max_merge_) return false;
    waiters_[size_t(s) * max_merge_ + slots_[s].count++] = waiter;
    return true;
  }

  // The waiters of addr's entry in arrival order (empty when absent). Valid
  // until the table is next changed.
  std::span<const Waiter> waiters(uint64_t addr) const {
    const uint32_t s = find(addr);
    if (s == kEmpty) return {};
    return {&waiters_[size_t(s) * max_merge_], slots_[s].count};
  }
  // Close addr's entry: appends its waiters, in arrival order, to `out` and
  // returns how many there were (0 when absent).
  uint32_t release(uint64_t addr, std::vector<Waiter>& out) {
    const uint32_t s = find(addr);
    if (s == kEmpty) return 0;
    const uint32_t n = slots_[s].count;
    for (uint32_t i = 0; i < n; ++i) out.push_back(waiters_[size_t(s) * max_merge_ + i]);
    erase(addr);
    slots_[s].count = 0;
    free_.push_back(s);
    return n;
  }
  // Convenience for tests: the waiters, in arrival order, of the closed entry.
  std::vector<Waiter> release(uint64_t addr) {
    std::vector<Waiter> out;
    release(addr, out);
    return out;
  }

 private:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  struct Slot {
    uint64_t addr = 0;
    uint32_t count = 0;  // waiters
  };

  size_t home(uint64_t addr) const {
    // Fibonacci hashing of the address: spreads sector-aligned addresses.
    return size_t((addr * 0x9E3779B97F4A7C15ull) >> 32) & (index_.size() - 1);
  }
  uint32_t find(uint64_t addr) const {
    for (size_t i = home(addr);; i = (i + 1) & (index_.size() - 1)) {
      const uint32_t s = index_[i];
      if (s == kEmpty) return kEmpty;
      if (slots_[s].addr == addr) return s;
    }
  }
  void insert(uint64_t addr, uint32_t slot) {
    size_t i = home(addr);
    while (index_[i] != kEmpty) i = (i + 1) & (index_.size() - 1);
    index_[i] = slot;
  }
  // Linear-probing delete with backward shift (no tombstones).
  void erase(uint64_t addr) {
    const size_t mask = index_.size() - 1;
    size_t i = home(addr);
    while (slots_[index_[i]].addr != addr) i = (i + 1) & mask;
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
      if (index_[j] == kEmpty) break;
      const size_t h = home(slots_[index_[j]].addr);
      // Move j back into the hole at i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (!stays) {
        index_[i] = index_[j];
        i = j;
      }
    }
    index_[i] = kEmpty;
  }

  uint32_t entries_;
  uint32_t max_merge_;
  // Both start as untouched zero pages (ZeroedArray: a waiter is plain
  // data): waiter storage is touched only as far as requests merge.
  ZeroedArray<Slot> slots_;
  ZeroedArray<Waiter> waiters_;  // entries x max_merge, in arrival order per entry
  std::vector<uint32_t> index_;  // open-addressed: sector address -> slot
  std::vector<uint32_t> free_;   // free slots, a stack
};

}  // namespace lockstep
