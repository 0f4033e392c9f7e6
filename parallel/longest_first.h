#pragma once
// Longest-processing-time-first assignment: the pieces of work of a cycle
// (clusters, memory-side units) go, most costly first, each to the least
// loaded thread. Used by the balanced partition (parallel/cycle_engine.cc) and by the
// scaling model's prediction (parallel/scaling_model.h), so both assign alike.
#include <cstdint>
#include <vector>

namespace lockstep {

// Assigns `items` (indices into `cost`) longest first (equal costs: in the
// order given), each to the least loaded of threads [first, first + n) (equal
// loads: the lowest index), adding its cost to that thread's entry of `load`.
// Returns the thread of each item, in the order of `items`.
std::vector<uint32_t> assign_longest_first(const std::vector<double>& cost, const std::vector<uint32_t>& items,
                                           std::vector<double>& load, uint32_t first, uint32_t n);

}  // namespace lockstep
