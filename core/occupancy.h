#pragma once
// Blocks of a kernel that fit on one SM at once, and the shared-memory
// carve-out chosen for it — the rules of NVIDIA's occupancy calculator.
#include <cstdint>
#include <string>

#include "configs/spec/sm_spec.h"

namespace lockstep {

struct KernelShape {
  uint64_t threads_per_block = 0;  // the block's x * y * z, which 32 bits need not hold
  uint32_t regs_per_thread = 0;
  uint32_t shared_bytes_per_block = 0;
};

struct Occupancy {
  uint32_t blocks_per_sm = 0;
  uint32_t warps_per_block = 0;
  uint32_t carveout_kb = 0;        // shared memory carve-out chosen for the kernel
  uint32_t l1_kb = 0;              // what the unified storage leaves for L1D
  const char* limited_by = "";     // "warps", "registers", "shared memory", "blocks", "threads"
  double occupancy() const;        // resident warps / max warps, set by compute_occupancy
  uint32_t max_warps = 0;
};

// Throws std::invalid_argument when a single block cannot fit (too many threads,
// registers or shared memory), naming the limit.
Occupancy compute_occupancy(const SmSpec& sm, const KernelShape& shape);

}  // namespace lockstep
