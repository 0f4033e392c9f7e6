#include "core/l1_data_cache.h"

#include <algorithm>

namespace lockstep {

SectorCacheGeometry l1_geometry(const L1dSpec& spec, uint32_t unified_kb) {
  SectorCacheGeometry g;
  g.sets = spec.sets;
  // Physical ways: enough for the whole unified storage when adaptive.
  const uint64_t set_bytes = uint64_t(spec.sets) * spec.line_bytes;
  g.ways = spec.adaptive ? std::max<uint32_t>(spec.ways, uint32_t(uint64_t(unified_kb) * 1024 / set_bytes)) : spec.ways;
  g.line_bytes = spec.line_bytes;
  g.sector_bytes = spec.sector_bytes;
  g.set_hash = IndexHash::kLinear;
  g.write_policy = WritePolicy::kWriteThrough;
  return g;
}

uint32_t l1_ways_for_kernel(const L1dSpec& spec, uint32_t l1_kb, uint32_t physical_ways) {
  if (!spec.adaptive) return spec.ways;
  const uint64_t set_bytes = uint64_t(spec.sets) * spec.line_bytes;
  return uint32_t(std::clamp<uint64_t>(uint64_t(l1_kb) * 1024 / set_bytes, 1, physical_ways));
}

L1DataCache::L1DataCache(uint32_t sm_id, const L1dSpec& spec, uint32_t unified_kb, uint32_t queue_entries)
    : sm_id_(sm_id), spec_(spec), cache_(l1_geometry(spec, unified_kb)), mshr_(spec.mshr_entries, spec.mshr_max_merge) {
  queue_.resize(std::max(queue_entries, 1u));
  for (QueuedInstruction& q : queue_) q.accesses.reserve(128);
  released_.reserve(spec.mshr_max_merge);
}

void L1DataCache::start_kernel(uint32_t l1_kb, uint8_t stat_slot) {
  stat_slot_ = stat_slot;
  const uint32_t ways = l1_ways_for_kernel(spec_, l1_kb, cache_.geometry().ways);
  if (ways != cache_.ways_in_use()) {
    cache_.set_ways(ways);  // invalidates
  } else {
    cache_.invalidate_all();
  }
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
  // Local memory and the texture / read-only path always cache in L1; global loads when l1d.cache_global.
  const bool cached = a.space == MemSpace::kLocal || a.space == MemSpace::kTexture || spec_.cache_global;
  const L1Access kind = a.op == SmAccessOp::kAtomic ? L1Access::kAtomic
                        : a.op == SmAccessOp::kStore ? L1Access::kStore
                        : cached                     ? L1Access::kLoad
                                                     : L1Access::kLoadBypass;
  begin(a.token, kind, a.op == SmAccessOp::kLoad && is_global_space(a.space), a.sectors);
  return kCompletesLater;
}

bool L1DataCache::lookup_one(const QueuedInstruction& q, const SectorAccess& a, bool& hit) {
  const uint64_t addr = a.sector * kSectorBytes;
  switch (q.kind) {
    case L1Access::kLoad: {
      if (cache_.probe(addr) == SectorState::kHit) {
        cache_.touch(addr);
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
      cache_.write(addr, a.byte_mask, false);  // update a present line; never allocate
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
    cache_.fill(r.addr);
    ++stats_.fill_sectors;
    mshr_.release(r.addr, released_);
    return;
  }
  released_.push_back(r.token);
}

}  // namespace lockstep
