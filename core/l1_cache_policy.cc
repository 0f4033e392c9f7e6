#include "core/l1_cache_policy.h"

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

L1CachePolicy::L1CachePolicy(const L1dSpec& spec, uint32_t unified_kb)
    : spec_(spec), cache_(l1_geometry(spec, unified_kb)) {}

L1Access L1CachePolicy::access_kind(const L1dSpec& spec, SmAccessOp op, MemSpace space) {
  // Local memory and the texture / read-only path always cache in L1; global loads when l1d.cache_global.
  const bool cached = space == MemSpace::kLocal || space == MemSpace::kTexture || spec.cache_global;
  return op == SmAccessOp::kAtomic ? L1Access::kAtomic
         : op == SmAccessOp::kStore ? L1Access::kStore
         : cached                   ? L1Access::kLoad
                                    : L1Access::kLoadBypass;
}

void L1CachePolicy::start_kernel(uint32_t l1_kb) {
  const uint32_t ways = l1_ways_for_kernel(spec_, l1_kb, cache_.geometry().ways);
  if (ways != cache_.ways_in_use()) {
    cache_.set_ways(ways);  // invalidates
  } else {
    cache_.invalidate_all();
  }
}

}  // namespace lockstep
