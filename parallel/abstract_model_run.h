#pragma once
// The runner of the abstract timing model (core/abstract/): per kernel, in
// trace order, the blocks are read once and encoded per SM, every basic
// block is pre-characterised on the cycle model's SM, and the SMs' timing is
// simulated independently of each other on oneTBB's threads (at most
// RunOptions::engine.threads; the same result for any count). Kernel cycles
// = the largest SM time. Memory: --perfect-memory gives every global access
// sm.perfect_memory_latency; otherwise fixed per-level latencies
// (core/abstract/memory_levels.h) with each SM's share of L2 and DRAM bandwidth.
#include "parallel/simulation.h"

namespace lockstep {

SimulationReport run_abstract(TraceSource& trace, const GpuSpec& spec, const RunOptions& options);

}  // namespace lockstep
