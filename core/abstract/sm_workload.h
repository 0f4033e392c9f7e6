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

// All the SM's blocks of a kernel (read whole), or those read so far (a
// kernel timed as it is read: the SM frees what it has timed, and indices
// stay those of the whole kernel).
struct SmWorkload {
  ChunkedArray<EncodedBlock, 8> blocks;  // in dispatch order
  ChunkedArray<EncodedWarp, 8> warps;
  // A kernel's paths and costs are the largest thing the abstract model
  // holds (they grow with the kernel).
  ChunkedArray<uint32_t> path;
  // Per memory instruction, in each warp's order: its cost's index in the
  // kernel's table of distinct costs (KernelWorkload::costs; most repeat),
  // 4 bytes an instruction where the record takes 12.
  ChunkedArray<uint32_t> memory;
  uint64_t warp_insts = 0;

  // No block before `block` (and none of their warps' paths and costs) is
  // read again.
  void release_before_block(uint32_t block) {
    if (block < blocks.released()) return;
    if (block >= blocks.size()) {  // every block read so far
      path.release_before(path.size());
      memory.release_before(memory.size());
      warps.release_before(warps.size());
      blocks.release_before(blocks.size());
      return;
    }
    const EncodedBlock& b = blocks[block];
    if (b.warp_begin < warps.size()) {
      const EncodedWarp& w = warps[b.warp_begin];
      path.release_before(w.path_begin);
      memory.release_before(w.memory_begin);
    }
    warps.release_before(b.warp_begin);
    blocks.release_before(block);
  }
};

}  // namespace lockstep
