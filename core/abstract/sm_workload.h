#pragma once
// What the abstract timing model knows of the blocks one SM runs in a kernel
// (GATSim §II-B, from the trace): per warp its path as a sequence of basic
// blocks and the cost of each of its memory instructions, in chunked arrays
// (an allocation per few thousand entries, none per warp or instruction).
#include <cstdint>
#include <vector>

#include "core/abstract/chunked_array.h"

namespace lockstep {

// One dynamic memory instruction, as the timing model charges it.
struct MemoryCost {
  uint32_t latency = 0;       // issue -> data there, unloaded
  uint16_t busy = 1;          // cycles the LD/ST unit is held
  uint16_t l2_sectors = 0;    // sectors served by the L2 or below (bandwidth)
  uint16_t dram_sectors = 0;  // sectors read from DRAM (bandwidth; the access waits for them)
  uint16_t dram_writebacks = 0;  // dirty sectors it evicts from the L2 (DRAM bandwidth after it)

  bool operator==(const MemoryCost&) const = default;
};

struct EncodedWarp {
  uint32_t path_begin = 0, path_end = 0;  // into SmWorkload::path (basic block ids)
  uint32_t memory_begin = 0;              // into SmWorkload::memory
  uint64_t thread_insts = 0;              // active lanes summed over its instructions
};

struct EncodedBlock {
  uint32_t warp_begin = 0, warp_end = 0;  // into SmWorkload::warps, trace order
  uint32_t order = 0;                     // its place in the kernel's dispatch order (trace order)
};

struct SmWorkload {
  std::vector<EncodedBlock> blocks;  // in dispatch order
  std::vector<EncodedWarp> warps;
  // Chunked, not vectors: a kernel's paths and costs are the largest thing
  // the abstract model holds (they grow with the kernel).
  ChunkedArray<uint32_t> path;
  // Per memory instruction, in each warp's order: its cost's index in the
  // kernel's table of distinct costs (KernelWorkload::costs; most repeat),
  // 4 bytes an instruction where the record takes 12.
  ChunkedArray<uint32_t> memory;
  uint64_t warp_insts = 0;
};

}  // namespace lockstep
