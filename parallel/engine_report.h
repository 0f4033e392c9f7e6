#pragma once
#include <cstdint>
#include <vector>

namespace lockstep {

// Figures of how a run used its threads (not deterministic; never in the statistics).
struct EngineReport {
  uint32_t threads = 1;
  uint32_t memory_threads = 0;   // threads that ran only memory-side units (para2)
  uint64_t parallel_cycles = 0;  // core cycles run by the whole team
  uint64_t serial_cycles = 0;    // core cycles run by the leader alone
  uint64_t skipped_cycles = 0;   // core cycles jumped over (fast-forward)
  uint64_t handshake_wait_ns = 0;  // the leader's time waiting at the per-cycle join
  uint64_t rebalances = 0;         // partition changes (balanced)
  uint64_t helped_pieces = 0;      // pieces run by a thread other than their owner (a thread done early helps)
  // With EngineOptions::profile: time per piece of work, summed over the
  // simulated cycles: each cluster, then each memory-side unit; and the
  // leader's time between cycles (phases C and A).
  std::vector<uint64_t> cluster_ns, unit_ns;
  uint64_t serial_ns = 0;
  uint64_t wall_ns = 0;  // the whole run
};

}  // namespace lockstep
