#pragma once
// Where the L1 data cache's lookup puts a sector request: its line (one tag
// lookup a cycle looks up one line) and its data bank (one request per bank
// a cycle). Divisions by the configured geometry are shifts when it is a
// power of two (core/divisor.h). The cycle model's L1DataCache and the
// abstract model's encoder, which mirrors its lookup, both use it.
#include <cstdint>

#include "configs/spec/memory_spec.h"
#include "core/coalescer.h"
#include "core/divisor.h"

namespace lockstep {

struct L1dBanking {
  L1dBanking() = default;
  explicit L1dBanking(const L1dSpec& l1d) : line_bytes(l1d.line_bytes), bank_bytes(l1d.bank_bytes), banks(l1d.banks) {}

  uint64_t line(uint64_t sector) const { return line_bytes.div(sector * kSectorBytes); }
  uint32_t bank(uint64_t sector) const { return uint32_t(banks.mod(uint32_t(bank_bytes.div(sector * kSectorBytes)))); }

  Divisor line_bytes{1}, bank_bytes{1}, banks{1};
};

}  // namespace lockstep
