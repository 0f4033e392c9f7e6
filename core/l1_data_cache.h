#pragma once
// The SM's L1 data cache and its side of the memory port
// (papers/volta-memory-system.txt §III-C, accel-sim.txt §II-B): 128 B lines
// of 32 B sectors, streaming — a miss takes an MSHR entry, never a line; the
// line is allocated when the data returns (allocate on fill), so misses keep
// issuing while the data array is full. Global stores write through without
// allocating (a present line is updated); atomics bypass it and execute at the
// L2. Its capacity follows the kernel's shared-memory carve-out (adaptive) and
// it is invalidated when the SM starts another kernel.
//
// The LD/ST unit queues instructions' sector accesses (from the coalescer)
// in an instruction queue of sm.ldst_queue_entries; each cycle the L1 looks
// up the head instruction's accesses to one 128 B line — up to one sector per
// data bank — and reports each access's completion through a callback: hits
// after l1d.hit_latency, misses when their reply arrives. Replies are taken
// from the reply port, one per cycle. It is one implementation of the SM
// memory port (core/sm_memory_port.h) and counts into its own L1Stats. Every
// cache decision is the L1CachePolicy's (l1_cache_policy.h).
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/coalescer.h"
#include "core/l1_cache_policy.h"
#include "core/l1d_banking.h"
#include "core/l1_stats.h"
#include "core/sm_memory_access.h"
#include "memsys/latched_queue.h"
#include "memsys/mem_packet.h"
#include "configs/spec/memory_spec.h"
#include "memsys/mshr_table.h"

namespace lockstep {

class L1DataCache {
 public:
  L1DataCache(uint32_t sm_id, const L1dSpec& spec, uint32_t unified_kb, uint32_t queue_entries);

  void connect(LatchedQueue<MemPacket>* to_memory, LatchedQueue<MemPacket>* from_memory) {
    to_memory_ = to_memory;
    from_memory_ = from_memory;
  }
  // A new kernel: invalidate, size the data array from its carve-out, count into its slot.
  void start_kernel(uint32_t l1_kb, uint8_t stat_slot);

  // Queued instructions still have accesses to look up.
  bool busy() const { return count_ > 0; }
  // The instruction queue has room for another instruction.
  bool can_accept() const { return count_ < queue_.size(); }
  // Queue an instruction's accesses (requires can_accept()); every one
  // completes through the callback of cycle() with `token`. `global` marks
  // global-space loads for the lookup-hit counter.
  void begin(uint32_t token, L1Access kind, bool global, std::span<const SectorAccess> accesses);
  // The SM memory port's hand-over: queues the instruction's accesses (the
  // kind from its operation and space); they complete through cycle().
  uint64_t access(const SmMemoryAccess& a);

  // One core cycle: take one reply, then look up the head line's accesses.
  // done(token, cycle) is called once per access when its data (or ack) is there.
  template <typename Done>
  void cycle(uint64_t now, Done&& done) {
    if (from_memory_ && !from_memory_->empty()) {
      take_reply(from_memory_->front());
      from_memory_->pop();
      for (uint32_t token : released_) done(token, now);
      released_.clear();
    }
    if (busy()) lookup(now, done);
  }
  // Anything to do this cycle: a reply to take or accesses to look up.
  bool has_work() const { return busy() || (from_memory_ && !from_memory_->empty()); }
  bool caches_global() const { return spec_.cache_global; }
  // Accesses waiting for replies (MSHR entries and uncached requests).
  bool waiting() const { return outstanding_ > 0; }
  const L1Stats& stats() const { return stats_; }
  L1Stats take_stats() { return std::exchange(stats_, L1Stats()); }

 private:
  // The instruction queue (a ring; slots keep their vectors' capacity).
  struct QueuedInstruction {
    std::vector<SectorAccess> accesses;
    size_t next = 0;  // the next access to look up
    uint32_t token = 0;
    L1Access kind = L1Access::kLoad;
    bool global = false;
  };

  template <typename Done>
  void lookup(uint64_t now, Done&& done);
  // One access; false when it must wait (reservation failure).
  bool lookup_one(const QueuedInstruction& q, const SectorAccess& a, bool& hit);
  void take_reply(const MemPacket& reply);
  bool stage(uint32_t token, MemPacketType type, uint64_t addr, uint32_t byte_mask, bool allocate);

  // What the SM asks every cycle (has_work(), can_accept()) first, on one cache line.
  alignas(64) std::vector<QueuedInstruction> queue_;
  size_t head_ = 0, count_ = 0;
  LatchedQueue<MemPacket>* to_memory_ = nullptr;
  LatchedQueue<MemPacket>* from_memory_ = nullptr;
  const uint32_t sm_id_;
  const L1dSpec& spec_;
  const L1dBanking banking_;  // a request's line and data bank
  L1CachePolicy policy_;
  MshrTable<uint32_t> mshr_;
  uint8_t stat_slot_ = 0;
  uint32_t outstanding_ = 0;
  L1Stats stats_;
  std::vector<uint32_t> released_;  // scratch: tokens completed by a reply
};

template <typename Done>
void L1DataCache::lookup(uint64_t now, Done&& done) {
  // One tag lookup per cycle: the head instruction's accesses to one line, one per data bank.
  QueuedInstruction& q = queue_[head_];
  const uint64_t line = banking_.line(q.accesses[q.next].sector);
  uint32_t banks_used = 0;
  while (q.next < q.accesses.size()) {
    const SectorAccess& a = q.accesses[q.next];
    if (banking_.line(a.sector) != line) break;
    const uint32_t bank = banking_.bank(a.sector);
    if (banks_used >> bank & 1u) break;  // bank conflict: next cycle
    bool hit = false;
    if (!lookup_one(q, a, hit)) {
      ++stats_.reservation_fails;
      break;
    }
    banks_used |= 1u << bank;
    if (hit) done(q.token, now + spec_.hit_latency);
    ++q.next;
  }
  if (q.next == q.accesses.size()) {
    head_ = head_ + 1 == queue_.size() ? 0 : head_ + 1;
    --count_;
  } else {
    policy_.cache().prefetch(q.accesses[q.next].sector * kSectorBytes);  // the next cycle's line
  }
}

}  // namespace lockstep
