#include "memsys/l2_cache_policy.h"

#include <stdexcept>

namespace lockstep {
namespace {

SectorCacheGeometry l2_geometry(const L2Spec& spec) {
  SectorCacheGeometry g;
  g.sets = spec.sets;
  g.ways = spec.ways;
  g.line_bytes = spec.line_bytes;
  g.sector_bytes = spec.sector_bytes;
  g.set_hash = spec.set_hash;
  g.write_policy = WritePolicy::kWriteBack;
  return g;
}

}  // namespace

L2CachePolicy::L2CachePolicy(const L2Spec& spec) : cache_(l2_geometry(spec)), write_validate_(spec.write_validate) {}

uint32_t L2CachePolicy::sectors_to_fetch(uint64_t addr, uint32_t sectors) const {
  const SectorCacheGeometry& g = cache_.geometry();
  const uint64_t line = cache_.line_addr(addr);
  uint32_t fetch = 0;
  for (uint32_t m = sectors; m != 0; m &= m - 1) {
    const uint32_t s = uint32_t(std::countr_zero(m));
    if (s >= g.sectors_per_line()) break;
    if (!readable(cache_.probe(line + uint64_t(s) * g.sector_bytes))) fetch |= 1u << s;
  }
  return fetch;
}

void L2CachePolicy::warm(uint64_t addr, uint32_t bytes) {
  const uint64_t offset = addr - cache_.sector_addr(addr);
  if (bytes == 0 || offset + bytes > cache_.geometry().sector_bytes)
    throw std::invalid_argument("L2CachePolicy::warm: bytes outside one sector");
  const uint32_t low = bytes >= 32 ? 0xffffffffu : (1u << bytes) - 1;
  const uint32_t s = cache_.sector_in_line(addr);
  uint32_t masks[kMaxSectorsPerLine];
  masks[s] = low << offset;
  warm_line(addr, 1u << s, masks);
}

}  // namespace lockstep
