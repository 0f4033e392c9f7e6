#include "memsys/sector_cache.h"

#include <bit>
#include <stdexcept>
#include <string>

#include "memsys/address_map.h"

namespace lockstep {
namespace {

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("SectorCache: " + what);
}

}  // namespace

SectorCache::SectorCache(const SectorCacheGeometry& geometry) : geometry_(geometry) {
  check(is_power_of_two(geometry.sets), "sets must be a power of two");
  check(geometry.ways >= 1, "ways must be >= 1");
  check(is_power_of_two(geometry.sector_bytes) && geometry.sector_bytes <= kMaxSectorBytes,
        "sector_bytes must be a power of two <= 32");
  check(is_power_of_two(geometry.line_bytes) && geometry.line_bytes >= geometry.sector_bytes,
        "line_bytes must be a power of two >= sector_bytes");
  check(geometry.line_bytes / geometry.sector_bytes <= kMaxSectorsPerLine, "more than 32 sectors per line");
  ways_in_use_ = geometry.ways;
  sectors_per_line_ = geometry.sectors_per_line();
  set_bits_ = uint32_t(std::countr_zero(geometry.sets));
  line_shift_ = uint32_t(std::countr_zero(geometry.line_bytes));
  full_mask_ = geometry.sector_bytes == 32 ? 0xffffffffu : (1u << geometry.sector_bytes) - 1;
  lines_.assign(size_t(geometry.sets) * geometry.ways, Line{});
  byte_masks_.assign(lines_.size() * sectors_per_line_, 0);
}

uint32_t SectorCache::set_of(uint64_t addr) const {
  return index_hash(geometry_.set_hash, addr >> line_shift_, set_bits_);
}

int32_t SectorCache::find(uint32_t set, uint64_t tag) const {
  for (uint32_t w = 0; w < ways_in_use_; ++w) {
    const Line& l = line(set, w);
    if (l.present && l.tag == tag) return int32_t(w);
  }
  return -1;
}

uint32_t SectorCache::victim(uint32_t set) const {
  uint32_t best = 0;
  for (uint32_t w = 0; w < ways_in_use_; ++w) {
    const Line& l = line(set, w);
    if (!l.present) return w;
    if (l.last_use < line(set, best).last_use) best = w;
  }
  return best;
}

Eviction SectorCache::eviction_of(uint32_t set, uint32_t way) const {
  Eviction ev;
  const Line& l = line(set, way);
  if (!l.present) return ev;
  ev.valid = true;
  ev.line_addr = l.tag << line_shift_;
  ev.valid_sectors = l.valid;
  ev.dirty_sectors = l.dirty;
  const uint32_t* m = masks(set, way);
  for (uint32_t s = 0; s < sectors_per_line_; ++s) ev.byte_masks[s] = m[s];
  return ev;
}

Eviction SectorCache::victim_of(uint64_t addr) const {
  const uint32_t set = set_of(addr);
  if (find(set, addr >> line_shift_) >= 0) return Eviction{};
  return eviction_of(set, victim(set));
}

Eviction SectorCache::allocate(uint32_t set, uint64_t tag, uint32_t* way) {
  const uint32_t w = victim(set);
  const Eviction ev = eviction_of(set, w);
  Line& l = line(set, w);
  uint32_t* m = masks(set, w);
  l = Line{};
  l.present = true;
  l.tag = tag;
  for (uint32_t s = 0; s < sectors_per_line_; ++s) m[s] = 0;
  *way = w;
  return ev;
}

SectorState SectorCache::probe(uint64_t addr) const {
  const uint32_t set = set_of(addr);
  const int32_t w = find(set, addr >> line_shift_);
  if (w < 0) return SectorState::kLineMiss;
  const uint32_t s = sector_in_line(addr);
  if (!(line(set, uint32_t(w)).valid >> s & 1)) return SectorState::kSectorMiss;
  return masks(set, uint32_t(w))[s] == full_mask_ ? SectorState::kHit : SectorState::kPartial;
}

uint32_t SectorCache::byte_mask(uint64_t addr) const {
  const uint32_t set = set_of(addr);
  const int32_t w = find(set, addr >> line_shift_);
  if (w < 0) return 0;
  return masks(set, uint32_t(w))[sector_in_line(addr)];
}

bool SectorCache::touch(uint64_t addr) {
  const uint32_t set = set_of(addr);
  const int32_t w = find(set, addr >> line_shift_);
  if (w < 0) return false;
  line(set, uint32_t(w)).last_use = ++use_counter_;
  return true;
}

Eviction SectorCache::fill(uint64_t addr) {
  const uint32_t set = set_of(addr);
  const uint64_t tag = addr >> line_shift_;
  Eviction ev;
  int32_t found = find(set, tag);
  uint32_t w = 0;
  if (found < 0) {
    ev = allocate(set, tag, &w);
  } else {
    w = uint32_t(found);
  }
  Line& l = line(set, w);
  const uint32_t s = sector_in_line(addr);
  l.valid |= 1u << s;
  masks(set, w)[s] = full_mask_;  // memory's bytes under the written ones: all present
  l.last_use = ++use_counter_;
  return ev;
}

Eviction SectorCache::write(uint64_t addr, uint32_t byte_mask, bool allocate_line) {
  const uint32_t set = set_of(addr);
  const uint64_t tag = addr >> line_shift_;
  Eviction ev;
  int32_t found = find(set, tag);
  uint32_t w = 0;
  if (found < 0) {
    if (!allocate_line) return ev;
    ev = allocate(set, tag, &w);
  } else {
    w = uint32_t(found);
  }
  Line& l = line(set, w);
  const uint32_t s = sector_in_line(addr);
  l.valid |= 1u << s;
  if (geometry_.write_policy == WritePolicy::kWriteBack) l.dirty |= 1u << s;
  masks(set, w)[s] |= byte_mask & full_mask_;
  l.last_use = ++use_counter_;
  return ev;
}

void SectorCache::invalidate_all() {
  for (Line& l : lines_) l = Line{};
  for (uint32_t& m : byte_masks_) m = 0;
}

void SectorCache::set_ways(uint32_t ways) {
  check(ways >= 1 && ways <= geometry_.ways, "set_ways(" + std::to_string(ways) + ") outside 1 .. " +
                                                 std::to_string(geometry_.ways));
  ways_in_use_ = ways;
  invalidate_all();
}

uint32_t SectorCache::valid_lines() const {
  uint32_t n = 0;
  for (const Line& l : lines_) n += l.present ? 1 : 0;
  return n;
}

uint32_t SectorCache::valid_sectors() const {
  uint32_t n = 0;
  for (const Line& l : lines_) n += uint32_t(std::popcount(l.valid));
  return n;
}

uint32_t SectorCache::dirty_sectors() const {
  uint32_t n = 0;
  for (const Line& l : lines_) n += uint32_t(std::popcount(l.dirty));
  return n;
}

}  // namespace lockstep
