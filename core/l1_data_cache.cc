#include "core/l1_data_cache.h"

#include <algorithm>

namespace lockstep {

L1DataCache::L1DataCache(uint32_t sm_id, const L1dSpec& spec, uint32_t unified_kb, uint32_t queue_entries)
    : sm_id_(sm_id),
      spec_(spec),
      banking_(spec),
      policy_(spec, unified_kb),
      mshr_(spec.mshr_entries, spec.mshr_max_merge) {
  queue_.resize(std::max(queue_entries, 1u));
  for (QueuedInstruction& q : queue_) q.accesses.reserve(128);
  released_.reserve(spec.mshr_max_merge);
}

void L1DataCache::start_kernel(uint32_t l1_kb, uint8_t stat_slot) {
  stat_slot_ = stat_slot;
  policy_.start_kernel(l1_kb);
}

void L1DataCache::begin(uint32_t token, L1Access kind, bool global, std::span<const SectorAccess> accesses) {
  size_t tail = head_ + count_;
  if (tail >= queue_.size()) tail -= queue_.size();
  QueuedInstruction& q = queue_[tail];
  q.accesses.assign(accesses.begin(), accesses.end());
  q.next = 0;
  q.token = token;
  q.kind = kind;
  q.global = global;
  ++count_;
  policy_.cache().prefetch(accesses.front().sector * kSectorBytes);  // looked up from the next cycle on
}

bool L1DataCache::stage(uint32_t token, MemPacketType type, uint64_t addr, uint32_t byte_mask, bool allocate) {
  if (!to_memory_->can_stage()) return false;
  MemPacket p;
  p.addr = addr;
  p.byte_mask = byte_mask;
  p.token = token;
  p.sm = uint16_t(sm_id_);
  p.stat_slot = stat_slot_;
  p.type = type;
  p.l1_allocate = allocate;
  to_memory_->stage(p);
  ++outstanding_;
  return true;
}

uint64_t L1DataCache::access(const SmMemoryAccess& a) {
  begin(a.token, L1CachePolicy::access_kind(spec_, a.op, a.space), a.op == SmAccessOp::kLoad && is_global_space(a.space), a.sectors);
  return kCompletesLater;
}

bool L1DataCache::lookup_one(const QueuedInstruction& q, const SectorAccess& a, bool& hit) {
  const uint64_t addr = a.sector * kSectorBytes;
  switch (q.kind) {
    case L1Access::kLoad: {
      if (policy_.load_hits(addr)) {
        hit = true;
        if (q.global) ++stats_.global_ld_hit_sectors;
        return true;
      }
      if (mshr_.probe(addr)) {
        if (!mshr_.merge(addr, q.token)) return false;
        ++stats_.mshr_merges;
        return true;
      }
      if (mshr_.full() || !to_memory_->can_stage()) return false;
      stage(q.token, MemPacketType::kRead, addr, 0, true);
      mshr_.allocate(addr, q.token);
      ++stats_.miss_sectors;
      return true;
    }
    case L1Access::kLoadBypass:
      if (!stage(q.token, MemPacketType::kRead, addr, 0, false)) return false;
      ++stats_.miss_sectors;
      return true;
    case L1Access::kStore:
      if (!to_memory_->can_stage()) return false;
      policy_.store(addr, a.byte_mask);  // update a present line; never allocate
      stage(q.token, MemPacketType::kWrite, addr, a.byte_mask, false);
      return true;
    case L1Access::kAtomic:
      return stage(q.token, MemPacketType::kAtomic, addr, a.byte_mask, false);
  }
  return false;
}

void L1DataCache::take_reply(const MemPacket& r) {
  --outstanding_;
  if (r.type == MemPacketType::kReadReply && r.l1_allocate) {
    policy_.fill(r.addr);
    ++stats_.fill_sectors;
    mshr_.release(r.addr, released_);
    return;
  }
  released_.push_back(r.token);
}

}  // namespace lockstep
