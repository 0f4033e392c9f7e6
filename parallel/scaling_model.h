#pragma once
// What a measured per-cycle cost split predicts for more threads than the
// machine has. Inputs come from a profiled run (EngineOptions::profile): the
// time of every cluster and every memory-side unit per simulated cycle, the
// leader's serial phases, and the handshake round trip measured on this
// machine. The model of one core cycle on T threads (schedule para1,
// partition balanced):
//   serial + makespan(T) + round_trip x depth(T)
// where makespan(T) is the longest thread's share when the units are
// assigned longest first to the least loaded thread (what --partition
// balanced does), and depth(T) the number of levels of the handshake tree
// (WorkerTeam::kFanOut children per thread; 0 for one thread). It ignores
// cache effects and the variation of work from cycle to cycle, so it is an
// upper bound on what the engine can reach.
#include <cstdint>
#include <vector>

namespace lockstep {

struct CycleCostSplit {
  std::vector<double> unit_ns;  // per simulated cycle: each cluster and each memory-side unit
  double serial_ns = 0;         // the leader's phases A and C per simulated cycle
  double round_trip_ns = 0;     // one fork-join level, no work
};

// Longest-first makespan of `unit_ns` over `threads` threads.
double longest_first_makespan(const std::vector<double>& unit_ns, uint32_t threads);
// Levels of the handshake tree for `threads` threads.
uint32_t handshake_depth(uint32_t threads, uint32_t fan_out);
// Predicted core-cycle time on `threads` threads.
double predicted_cycle_ns(const CycleCostSplit& split, uint32_t threads);
// Measures the mean fork-join round trip of a 2-thread team with empty shares.
double measure_round_trip_ns(uint32_t cycles);

}  // namespace lockstep
