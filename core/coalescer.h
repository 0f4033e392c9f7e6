#pragma once
// Sub-warp coalescing: the lanes of a warp are taken in groups of N
// consecutive threads (8 on Pascal and later, 32 on Kepler); each group's
// accesses become one request per distinct 32 B sector it touches.
#include <cstdint>
#include <span>

namespace lockstep {

inline constexpr uint32_t kSectorBytes = 32;

// `addrs` holds one address per active lane of `mask`, lowest lane first.
uint32_t count_sectors(std::span<const uint64_t> addrs, uint32_t mask, uint32_t access_bytes, uint32_t group_threads);

}  // namespace lockstep
