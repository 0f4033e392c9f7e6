#include "parallel/scaling_model.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "parallel/longest_first.h"
#include "parallel/semaphore.h"
#include "parallel/worker_team.h"

namespace lockstep {

double longest_first_makespan(const std::vector<double>& unit_ns, uint32_t threads) {
  threads = std::max(threads, 1u);
  std::vector<uint32_t> items(unit_ns.size());
  std::iota(items.begin(), items.end(), 0u);
  std::vector<double> load(threads, 0.0);
  assign_longest_first(unit_ns, items, load, 0, threads);
  return *std::max_element(load.begin(), load.end());
}

uint32_t handshake_depth(uint32_t threads, uint32_t fan_out) {
  uint32_t depth = 0;
  for (uint64_t reached = 1, level = 1; reached < threads; ++depth) {
    level *= fan_out;
    reached += level;
  }
  return depth;
}

double predicted_cycle_ns(const CycleCostSplit& split, uint32_t threads) {
  return split.serial_ns + longest_first_makespan(split.unit_ns, threads) +
         split.round_trip_ns * handshake_depth(threads, WorkerTeam<SpinFutexSemaphore>::kFanOut);
}

double measure_round_trip_ns(uint32_t cycles) {
  WorkerTeam<SpinFutexSemaphore> team(1, handshake_oversubscribed(2), [](uint32_t) {});
  for (uint32_t i = 0; i < 1000; ++i) team.run_cycle();  // warm up the spin limits
  const auto t0 = std::chrono::steady_clock::now();
  for (uint32_t i = 0; i < cycles; ++i) team.run_cycle();
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  return cycles ? double(ns) / cycles : 0.0;
}

}  // namespace lockstep
