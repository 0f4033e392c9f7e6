#pragma once
// The SM's L1 instruction cache: set-associative, LRU, its tags and
// replacement held by the same cache engine as the data caches (SectorCache,
// one sector per line). A missed line is allocated at once and becomes
// usable icache_miss_latency cycles later (the refill is served below L1I);
// a lookup that hits a line still being refilled counts as a hit that waits.
#include <cstdint>
#include <vector>

#include "configs/spec/sm_spec.h"
#include "memsys/sector_cache.h"

namespace lockstep {

class InstructionCache {
 public:
  explicit InstructionCache(const SmSpec& spec);

  // Looks up the line holding `pc` at `now`: true on a hit. `ready_at` is the
  // cycle the line's instructions can be decoded (now, or later while it refills).
  bool lookup(uint64_t pc, uint64_t now, uint64_t& ready_at);
  // Drops every line (another kernel's code).
  void invalidate();

 private:
  // Tags are line numbers scaled to the tag array's one-sector lines.
  static constexpr uint32_t kTagLineBytes = 32;
  struct Refill {
    uint64_t line;
    uint64_t ready;
  };
  uint32_t line_shift_;  // log2(icache_line_bytes), a power of two (SmSpec::validate)
  uint32_t miss_latency_;
  SectorCache tags_;
  std::vector<Refill> refills_;  // lines missed within the last miss latency
  static constexpr uint64_t kNoLine = UINT64_MAX;
  // Per set of tags_: its most recently used line (kNoLine: none), kept by
  // lookup(), the only caller that changes tags_.
  std::vector<uint64_t> mru_line_;
};

}  // namespace lockstep
