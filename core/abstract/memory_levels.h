#pragma once
// Where each memory access of the abstract model is served, and what it
// costs. Two pieces, so that a cache model can replace the first alone:
//   HitLevelSource   the level (L1 / L2 / DRAM) of each 128 B line an
//                    instruction touches, asked in trace order per kernel,
//                    with the SM its block runs on. Now: FirstTouchLevels
//                    (infinite caches: a line an SM touched before hits its
//                    L1, one any SM or a MemcpyHtoD touched hits the L2, else
//                    DRAM). A cache-functional memory model plugs in here by
//                    answering level() for the same accesses.
//   MemoryLatencies  fixed per-level latencies in core cycles, derived from
//                    the GPU config (memory_latencies()), and the DRAM and L2
//                    bandwidth each SM gets (its share of the GPU's).
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "configs/spec/gpu_spec.h"

namespace lockstep {

enum class HitLevel : uint8_t { kL1 = 0, kL2, kDram };

struct MemoryLatencies {
  uint32_t l1_hit = 0;
  uint32_t l2_hit = 0;
  uint32_t dram = 0;
  // Core cycles one 32 B sector occupies an SM's share of the L2 / DRAM
  // bandwidth, in 1/256 cycle.
  uint32_t l2_sector_cost = 0;
  uint32_t dram_sector_cost = 0;
  uint32_t of(HitLevel l) const { return l == HitLevel::kL1 ? l1_hit : l == HitLevel::kL2 ? l2_hit : dram; }
};

// The per-level latencies the cycle memory system gives an unloaded access:
// L1 hit = l1d.hit_latency; L2 hit adds the crossbar both ways and the L2
// latency; DRAM adds the row activation and column access and dram.extra_latency.
MemoryLatencies memory_latencies(const GpuSpec& spec);

class FirstTouchLevels {
 public:
  explicit FirstTouchLevels(uint32_t sms) : l1_(sms) {}
  // A kernel starts: the L1s are empty again (not coherent), the L2 keeps its lines.
  void start_kernel() {
    for (auto& l1 : l1_) l1.clear();
  }
  // A host-to-device copy leaves its lines in the L2.
  void copy_to_device(uint64_t address, uint64_t bytes);
  // The level that serves `line` (address / 128) for SM `sm`; a store or an
  // atomic is served by the L2 and leaves the line there, not in the L1.
  HitLevel level(uint32_t sm, uint64_t line, bool store_or_atomic);

 private:
  std::vector<std::unordered_set<uint64_t>> l1_;
  std::unordered_set<uint64_t> l2_;
};

}  // namespace lockstep
