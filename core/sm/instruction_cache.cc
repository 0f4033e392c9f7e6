#include "core/sm/instruction_cache.h"

#include <algorithm>
#include <bit>

namespace lockstep {
namespace {

SectorCacheGeometry icache_geometry(const SmSpec& spec, uint32_t tag_line_bytes) {
  const uint32_t lines = std::max(1u, spec.icache_kb * 1024 / std::max(1u, spec.icache_line_bytes));
  SectorCacheGeometry g;
  g.ways = std::max(1u, spec.icache_ways);
  g.sets = std::max(1u, lines / g.ways);  // a power of two (SmSpec::validate)
  g.line_bytes = tag_line_bytes;
  g.sector_bytes = tag_line_bytes;
  g.set_hash = IndexHash::kLinear;  // set = line number modulo sets
  g.write_policy = WritePolicy::kWriteThrough;
  return g;
}

}  // namespace

InstructionCache::InstructionCache(const SmSpec& spec)
    : line_shift_(uint32_t(std::countr_zero(spec.icache_line_bytes))),
      miss_latency_(spec.icache_miss_latency),
      tags_(icache_geometry(spec, kTagLineBytes)) {
  refills_.reserve(size_t(spec.subcores) * (spec.icache_miss_latency + 1));
  mru_line_.assign(tags_.geometry().sets, kNoLine);
}

bool InstructionCache::lookup(uint64_t pc, uint64_t now, uint64_t& ready_at) {
  const uint64_t line = pc >> line_shift_;
  const uint64_t tag_addr = line * kTagLineBytes;
  // Its set's most recently used line, with no refill pending: a hit that
  // changes nothing (most fetches), answered without the tag array.
  uint64_t& mru = mru_line_[tags_.set_of(tag_addr)];
  if (line == mru && refills_.empty()) {
    ready_at = now;
    return true;
  }
  mru = line;  // a hit's touch and a miss's fill both make it so
  // Refills done by now are plain lines.
  if (!refills_.empty()) std::erase_if(refills_, [now](const Refill& r) { return r.ready <= now; });
  auto refill = std::find_if(refills_.begin(), refills_.end(), [line](const Refill& r) { return r.line == line; });
  // A present line is whole (its one sector is filled on the miss): touching it is the hit.
  if (tags_.touch(tag_addr)) {
    ready_at = refill != refills_.end() ? refill->ready : now;
    return true;
  }
  tags_.fill(tag_addr);  // replaces the set's least recently used line
  ready_at = now + miss_latency_;
  if (refill != refills_.end()) {
    refill->ready = ready_at;
  } else {
    refills_.push_back(Refill{line, ready_at});
  }
  return false;
}

void InstructionCache::invalidate() {
  std::fill(mru_line_.begin(), mru_line_.end(), kNoLine);
  tags_.invalidate_all();
  refills_.clear();
}

}  // namespace lockstep
