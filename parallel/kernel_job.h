#pragma once
// What the GPU runs (a kernel of the trace, with the copies before it) and
// what it gives back per kernel.
#include <cstdint>
#include <vector>

#include "core/kernel_program.h"
#include "core/occupancy.h"
#include "core/sm_stats.h"
#include "frontend/trace/kernel_info.h"
#include "memsys/memory_stats.h"

namespace lockstep {

struct KernelJob {
  uint32_t kernel_index = 0;
  KernelProgram* program = nullptr;  // extended as the kernel's static table grows (text traces)
  std::vector<MemcpyHtoD> copies_before;  // host-to-device copies that precede the launch
};

struct KernelResult {
  uint32_t kernel_index = 0;
  uint64_t start_cycle = 0;  // the kernel's start: the cycle it launched
  uint64_t cycles = 0;       // from start_cycle to the end of its drain (launch.kernel_drain_cycles after its last block)
  bool truncated = false;    // stopped by the cycle budget
  bool complete = false;     // its last block retired
  Occupancy occupancy;
  SmStats stats;             // counters of the SMs while they held this kernel's blocks
  MemoryStats memory;        // the memory model's counters for this kernel's traffic
  // With RunOptions::per_unit_stats only (else empty): `stats` per SM, by SM
  // id, and `memory` per block instance (then memory == memory_units.total()).
  std::vector<SmStats> sm_stats;
  MemoryInstanceStats memory_units;
};

}  // namespace lockstep
