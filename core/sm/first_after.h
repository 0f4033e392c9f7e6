#pragma once
// The earliest of a set of cycles that lies after `now` (UINT64_MAX when
// none does): when the next of several busy resources frees.
#include <cstdint>
#include <span>

namespace lockstep {

inline uint64_t first_after(std::span<const uint64_t> cycles, uint64_t now) {
  uint64_t first = UINT64_MAX;
  for (uint64_t t : cycles)
    if (t > now && t < first) first = t;
  return first;
}

}  // namespace lockstep
