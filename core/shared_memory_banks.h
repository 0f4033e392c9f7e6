#pragma once
// Shared-memory bank conflicts: each bank returns one word per cycle; lanes
// reading the same word are served together (broadcast). The access takes as
// many cycles (wavefronts) as the busiest bank has distinct words.
#include <cstdint>
#include <span>

namespace lockstep {

uint32_t shared_memory_wavefronts(std::span<const uint64_t> addrs, uint32_t access_bytes, uint32_t banks,
                                  uint32_t bank_bytes);

}  // namespace lockstep
