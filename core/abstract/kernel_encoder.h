#pragma once
// Reads one kernel's blocks from the trace once, in trace order, and turns
// them into what the abstract timing model runs: the kernel's basic blocks
// and, per SM, its blocks' warps as basic-block paths with the cost of every
// memory instruction. Block b of the kernel runs on SM b % sms (the cycle
// model's dispatcher fills the SMs round robin, one block per SM per cycle).
#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/abstract/basic_blocks.h"
#include "core/abstract/memory_levels.h"
#include "core/abstract/sm_workload.h"
#include "core/coalescer.h"
#include "core/l1d_banking.h"
#include "core/kernel_program.h"
#include "core/shared_memory_banks.h"
#include "frontend/trace/trace_source.h"

namespace lockstep {

struct KernelWorkload {
  FallThrough fall;
  BasicBlocks blocks;
  std::vector<SmWorkload> sms;
  std::vector<MemoryCost> costs;  // the distinct memory costs SmWorkload::memory indexes
  uint64_t blocks_read = 0;
  KernelTraffic traffic;  // full memory: what the kernel moves through the L2 and DRAM
};

class KernelEncoder {
 public:
  // `levels` null: perfect memory (every global access sm.perfect_memory_latency).
  KernelEncoder(const SmSpec& sm, uint32_t sms, const MemoryLatencies& latencies, CacheHitLevels* levels);
  // `l1_kb`: the L1D the kernel's carve-out leaves. Throws TraceError for a
  // bad trace; std::runtime_error for a path that is not whole blocks.
  // The trace source decodes the blocks one chunk ahead on a thread of its
  // own when it can (not a whole first wave: the encoder reads whole blocks
  // and takes each at once, so a wave decoded ahead would only hold memory,
  // 340 MB for vecadd's 640 resident blocks at 100 M warp instructions).
  KernelWorkload encode(TraceSource& trace, uint32_t kernel, KernelProgram& program, uint32_t l1_kb);

  // The same workload in two reads of the kernel, for a kernel too long to
  // hold (its SMs timed as it is read, AbstractSm::advance). scan() reads it
  // once for what must be known before any SM runs: the basic blocks and,
  // with the full memory system, the traffic (the cache levels go through
  // the kernel and get their L2 back, CacheHitLevels::save_l2). Then start()
  // and read_more() read it again, appending blocks to the returned
  // workload's SMs in the order encode() would.
  KernelWorkload scan(TraceSource& trace, uint32_t kernel, KernelProgram& program, uint32_t l1_kb);
  void start(TraceSource& trace, uint32_t kernel, uint32_t l1_kb, KernelWorkload& work);
  // Reads whole rounds of blocks (one per SM), at least two and at least
  // `warp_insts` warp instructions, or to the kernel's end; false once
  // every block is read. Throws std::runtime_error when the second read
  // finds another kernel than the first (the trace changed in between).
  bool read_more(KernelProgram& program, KernelWorkload& work, uint64_t warp_insts);

 private:
  MemoryCost cost(const TimedInstruction& ti, const WarpTrace& w, const WarpInstruction& wi, uint32_t sm);
  // Calls f(warp index, warp, instruction, static instruction) for each
  // memory instruction of the block's warps, in the order the warps run side
  // by side on an SM: the i-th instruction of every warp (in warp order)
  // before the (i+1)-th of any. The caches see a block's accesses in that
  // order, not one warp's whole trace after another's, so that the first
  // warp does not take every miss on the lines its warps share (warp by warp
  // it did: graph's gather kernels came out up to 41% slower than the cycle
  // model).
  template <typename F>
  void for_each_memory_access(const KernelProgram& program, const BlockTrace& block, F&& f);
  // The block's memory cost indices into `costs`, per warp (block_costs_).
  void cost_block(const KernelProgram& program, const BlockTrace& block, uint32_t sm, std::vector<MemoryCost>& costs);
  // Appends warp `index`'s memory costs (block_costs_) to `work` and counts its instructions.
  void append_costs(const WarpTrace& w, uint32_t index, SmWorkload& work, EncodedWarp& ew);
  // The next block read into `work`: its SM, its block record and each
  // warp's record, from `add_warp(warp, its index, sm work, encoded warp)`;
  // the warps' memory costs in block_costs_ first.
  template <typename AddWarp>
  void encode_block(const KernelProgram& program, const BlockTrace& block, KernelWorkload& work, AddWarp&& add_warp);
  // The index of `c`, the cost of an instance of static instruction
  // `static_id`, in `costs`, appended if new.
  uint32_t cost_index(uint32_t static_id, const MemoryCost& c, std::vector<MemoryCost>& costs);
  struct CostHash {
    size_t operator()(const MemoryCost& c) const {
      const uint64_t a = uint64_t(c.latency) << 32 | uint64_t(c.busy) << 16 | c.l2_sectors;
      const uint64_t b = uint64_t(c.dram_sectors) << 16 | c.dram_writebacks;
      return size_t((a ^ b * 0x9E3779B97F4A7C15ull) * 0xC2B2AE3D27D4EB4Full >> 17);
    }
  };
  std::unordered_map<MemoryCost, uint32_t, CostHash> cost_ids_;  // this kernel's, into KernelWorkload::costs
  // Per static instruction: the cost indices its last instances got, most
  // recent first (UINT32_MAX: none yet).
  static constexpr size_t kRecentCosts = 4;
  std::vector<std::array<uint32_t, kRecentCosts>> recent_costs_;

  // The second read of a kernel read in two (start(), read_more()).
  std::unique_ptr<BlockCursor> stream_;
  const StaticTable* stream_table_ = nullptr;
  uint32_t stream_kernel_ = 0;

  const SmSpec& sm_;
  const uint32_t sms_;
  const MemoryLatencies latencies_;
  CacheHitLevels* levels_;
  // The 128 B lines one instruction touches: sectors (bit per 32 B sector),
  // the sector requests of its groups to the line, and the bytes of each sector.
  struct LineTouch {
    uint64_t line = 0;
    uint32_t sectors = 0;
    uint32_t requests = 0;
    std::array<uint32_t, 4> bytes{};
  };
  std::vector<LineTouch> lines_;        // scratch
  std::vector<std::vector<uint32_t>> block_costs_;  // scratch: per warp of a block, its memory cost indices
  std::vector<uint64_t> order_;  // scratch: a block's memory instructions as (instruction index << 32 | warp)
  std::vector<SectorAccess> sectors_;   // scratch: the coalescer's requests
  SharedMemoryBanks shared_banks_;  // wavefronts, remembered per access pattern
  // The full memory system's L1D data banks: sector address x 32 / bank_bytes % banks.
  L1dBanking l1_banking_;  // the L1D's data bank of a request, as L1DataCache::lookup finds it
};

}  // namespace lockstep
