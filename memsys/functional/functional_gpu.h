#pragma once
// The cache-functional memory model of a whole GPU
// (papers/cache-functional-memory-model.txt §4; docs/DESIGN.md "The memory
// model"): the SMs (functional_sm.h) and the L2 slices (functional_l2.h),
// kernel by kernel, with no timing.
//
// Placement: block i of a kernel goes to SM (first + i) mod SMs, `first`
// following on from where the previous kernel's last block went — the block
// scheduler's round robin, exact for the first wave and an approximation
// after it (the cycle model places a block where one retired first).
//
// Rounds: the blocks are read in trace order and handed to their SMs, a
// full wave (SMs x blocks per SM) first; then every SM runs until it needs a
// block not read yet or its step (memory instructions so far) reaches the
// chunk's limit (in parallel, one task per SM), then every L2 slice takes the
// chunk's requests of all SMs, merged by (step, SM id) — each SM's requests in
// its own order, the SMs interleaved by their progress — (in parallel, one
// task per slice). The next chunk raises the limit by the chunk's steps; once
// every SM needs a block or is done, blocks are read until every SM that
// needs one has it (an SM that needs one does nothing meanwhile, however
// many chunks the others run). What an SM or a slice computes depends only
// on the trace and the config, never on the threads or on the chunk's
// length: results are identical for any thread count and any steps per
// chunk. Memory holds the resident blocks, at most one block given ahead per
// SM, and one chunk's requests (an SM far behind the others, after waiting
// for a block, catches up a chunk at a time).
#include <cstdint>
#include <memory>
#include <vector>

#include "configs/spec/gpu_spec.h"
#include "core/kernel_program.h"
#include "core/occupancy.h"
#include "core/sm_stats.h"
#include "frontend/trace/trace_source.h"
#include "memsys/functional/functional_l2.h"
#include "memsys/functional/functional_sm.h"
#include "memsys/memory_stats.h"

namespace lockstep {

// One kernel's counters.
struct FunctionalKernelResult {
  SmStats stats;                    // every SM's, summed in SM id order
  MemoryStats memory;               // every slice's and channel's
  std::vector<SmStats> sm_stats;    // per SM (per-unit statistics only)
  MemoryInstanceStats memory_units;  // per slice and channel (per-unit statistics only)
};

class FunctionalGpu {
 public:
  // The steps (memory instructions per SM) between two L2 phases by default:
  // an SM's L1 and a slice stay in the host's caches for that long (the L1s
  // and slices of a whole GPU are megabytes); the requests one chunk holds
  // grow with it (stream_copy 10M on QV100, one thread, 32-byte requests:
  // 256 steps 1.74 s 58 MB, 1024 1.01 s 76 MB, 2048 0.89 s 100 MB, 4096
  // 0.90 s 136 MB; 24-byte requests since, 2048: 90 MB).
  static constexpr uint64_t kStepsPerChunk = 2048;

  // `threads`: at most this many run the SMs and the slices (1: all on the
  // caller's thread). `steps_per_chunk` (>= 1) changes only how the work is
  // cut, never a result (what an SM does does not depend on where it stops
  // for a limit, functional_sm.h): more steps hold more requests at once.
  FunctionalGpu(const GpuSpec& spec, uint32_t threads, bool per_unit_stats,
                uint64_t steps_per_chunk = kStepsPerChunk);
  ~FunctionalGpu();

  // Copy engine (MemcpyHtoD): the bytes land in the L2 as written data.
  void copy_to_device(uint64_t addr, uint64_t bytes) { l2_.copy_to_device(addr, bytes); }
  // Runs a kernel: its blocks from `blocks` to the end, `program` extended
  // from `table` as they are read (text traces grow it).
  FunctionalKernelResult run_kernel(KernelProgram& program, const StaticTable& table, BlockCursor& blocks,
                                    const Occupancy& occupancy);

  FunctionalSm& sm(uint32_t id) { return *sms_[id]; }
  FunctionalL2& l2() { return l2_; }

 private:
  // fn(i) for i in [0, n): on the caller's thread with one thread, else as oneTBB tasks.
  template <typename Fn>
  void for_each(uint32_t n, Fn&& fn);
  // Slice `s` takes every SM's requests for it, merged by (step, SM id).
  void merge_into_slice(uint32_t s);

  const uint32_t threads_;
  const bool per_unit_;
  const uint64_t steps_per_chunk_;
  FunctionalL2 l2_;
  std::vector<std::unique_ptr<FunctionalSm>> sms_;
  struct Arena;
  std::unique_ptr<Arena> arena_;  // the oneTBB arena of `threads` (threads > 1 only)
  // Per slice: the merge's cursors, one per SM with requests (scratch).
  struct Cursor {
    const L2Request* at;
    const L2Request* end;
    uint32_t sm;
  };
  std::vector<std::vector<Cursor>> heaps_;
  // Per slice: the merge's counting sort by step (scratch): requests per step
  // from the chunk's lowest, then the requests in merged order.
  struct SortScratch {
    std::vector<uint32_t> per_step;
    std::vector<const L2Request*> order;
  };
  std::vector<SortScratch> sort_;
  std::vector<std::unique_ptr<BlockTrace>> spare_blocks_;  // storage of retired blocks, to decode into
  uint32_t next_sm_ = 0;  // the SM the next block goes to
  std::vector<uint8_t> running_;  // per SM: runs on in the chunk's next part (run_kernel's scratch)
  static constexpr uint64_t kReleaseEvery = 64;
  uint64_t merges_ = 0;
};

}  // namespace lockstep
