#include "core/occupancy.h"

#include <algorithm>
#include <stdexcept>

namespace lockstep {
namespace {

uint32_t round_up(uint32_t v, uint32_t g) { return g ? (v + g - 1) / g * g : v; }

}  // namespace

double Occupancy::occupancy() const {
  return max_warps ? double(blocks_per_sm * warps_per_block) / double(max_warps) : 0.0;
}

Occupancy compute_occupancy(const SmSpec& sm, const KernelShape& k) {
  Occupancy o;
  o.max_warps = sm.max_warps;
  if (k.threads_per_block == 0) throw std::invalid_argument("kernel has 0 threads per block");
  if (k.threads_per_block > sm.max_threads)
    throw std::invalid_argument("a block of " + std::to_string(k.threads_per_block) + " threads exceeds the SM's " +
                                std::to_string(sm.max_threads) + " threads");
  o.warps_per_block = uint32_t((k.threads_per_block + 31) / 32);  // at most sm.max_threads / 32 + 1
  if (o.warps_per_block > sm.max_warps)
    throw std::invalid_argument("a block of " + std::to_string(k.threads_per_block) + " threads exceeds the SM's " +
                                std::to_string(sm.max_warps) + " warps");
  if (k.regs_per_thread > sm.max_regs_per_thread)
    throw std::invalid_argument("kernel uses " + std::to_string(k.regs_per_thread) + " registers per thread, above " +
                                std::to_string(sm.max_regs_per_thread));
  const uint32_t regs_per_warp = round_up(std::max(k.regs_per_thread, 1u) * 32, sm.reg_alloc_granularity);
  const uint32_t regs_per_block = regs_per_warp * o.warps_per_block;
  if (regs_per_block > sm.registers || regs_per_block > sm.max_regs_per_block)
    throw std::invalid_argument("a block needs " + std::to_string(regs_per_block) + " registers, more than the SM has");
  const uint32_t shared = round_up(k.shared_bytes_per_block, sm.shared_alloc_granularity);
  if (shared > sm.max_shared_per_block_kb * 1024)
    throw std::invalid_argument("a block needs " + std::to_string(shared) + " B of shared memory, above the " +
                                std::to_string(sm.max_shared_per_block_kb) + " KB per-block limit");

  auto limit = [&](uint32_t value, const char* why) {
    if (value < o.blocks_per_sm) {
      o.blocks_per_sm = value;
      o.limited_by = why;
    }
  };
  o.blocks_per_sm = sm.max_blocks;
  o.limited_by = "blocks";
  limit(sm.max_warps / o.warps_per_block, "warps");
  limit(uint32_t(sm.max_threads / k.threads_per_block), "threads");
  limit(sm.registers / regs_per_block, "registers");
  // Shared memory: the largest carve-out sets the bound; then the driver picks
  // the smallest carve-out that keeps that many blocks (leaving L1D the most).
  uint32_t largest = 0;
  for (uint32_t c : sm.shared_carveouts_kb) largest = std::max(largest, c);
  if (shared) limit(largest * 1024 / shared, "shared memory");
  o.carveout_kb = largest;
  for (uint32_t c : sm.shared_carveouts_kb)
    if (c < o.carveout_kb && (shared == 0 || c * 1024 / shared >= o.blocks_per_sm)) o.carveout_kb = c;
  if (shared == 0) o.carveout_kb = *std::min_element(sm.shared_carveouts_kb.begin(), sm.shared_carveouts_kb.end());
  o.l1_kb = sm.unified_l1_shared_kb > o.carveout_kb ? sm.unified_l1_shared_kb - o.carveout_kb : 0;
  if (o.blocks_per_sm == 0) throw std::invalid_argument("no block of this kernel fits on an SM");
  return o;
}

}  // namespace lockstep
