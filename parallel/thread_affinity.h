#pragma once
// Optional thread pinning for the simulation threads (--pin): thread i of a
// team runs only on CPU i mod (the CPUs this process may use). It keeps the
// per-cycle handshake's partners on fixed cores; results never depend on it.
#include <cstdint>
#include <vector>

namespace lockstep {

// The CPUs a thread may run on (empty: unknown, nothing to restore).
struct CpuAffinity {
  std::vector<int> cpus;
};

// Pins the calling thread to the `index`-th CPU it may use (mod their count);
// returns its affinity before. Does nothing where pinning is unsupported.
CpuAffinity pin_current_thread(uint32_t index);
// Gives the calling thread back an affinity returned by pin_current_thread.
void restore_affinity(const CpuAffinity& affinity);

}  // namespace lockstep
