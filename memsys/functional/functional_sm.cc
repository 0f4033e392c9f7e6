#include "memsys/functional/functional_sm.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace lockstep {

FunctionalSm::FunctionalSm(const GpuSpec& spec, const AddressMap& map)
    : spec_(spec), l1_(spec.memory.l1d, spec.sm.unified_l1_shared_kb), requests_(map.slices()), locator_(map) {
  warps_.reserve(size_t(spec.sm.max_warps) * 2);
  sectors_.reserve(128);
  missed_.reserve(128);
}

void FunctionalSm::start_kernel(const KernelProgram& program, const Occupancy& occupancy) {
  program_ = &program;
  blocks_per_sm_ = occupancy.blocks_per_sm;
  for (BlockSlot& s : slots_)
    if (s.trace) spent_.push_back(std::move(s.trace));
  slots_.clear();
  slots_.resize(blocks_per_sm_);
  resident_blocks_ = 0;
  warps_.clear();
  position_ = 0;
  step_ = 0;
  starved_ = false;
  l1_.start_kernel(occupancy.l1_kb);  // the L1 is not coherent: invalidated per kernel
}

void FunctionalSm::place(uint32_t slot, std::unique_ptr<BlockTrace> block) {
  ++stats_.blocks_launched;
  uint32_t warps = 0;
  for (const WarpTrace& w : block->warps) {
    warps_.push_back(Warp{&w, 0, slot, false});
    ++warps;
  }
  if (warps == 0) {  // nothing to run: retires at once
    spent_.push_back(std::move(block));
    return;
  }
  slots_[slot].trace = std::move(block);
  slots_[slot].warps_left = warps;
  ++resident_blocks_;
}

void FunctionalSm::place_queued() {
  for (uint32_t s = 0; s < slots_.size() && !queued_.empty(); ++s) {
    while (!slots_[s].trace && !queued_.empty()) {
      std::unique_ptr<BlockTrace> block = std::move(queued_.front());
      queued_.pop_front();
      place(s, std::move(block));
    }
  }
}

void FunctionalSm::run(bool more_coming, uint64_t step_limit) {
  place_queued();
  starved_ = false;
  for (;;) {
    if (step_ >= step_limit) return;
    if (position_ >= warps_.size()) {
      // A pass over the resident warps is over: drop the ended ones, start the next.
      warps_.erase(std::remove_if(warps_.begin(), warps_.end(), [](const Warp& w) { return w.done; }), warps_.end());
      position_ = 0;
      if (warps_.empty()) return;
    }
    Warp& w = warps_[position_++];
    if (w.done || !turn(w)) continue;
    w.done = true;
    const uint32_t slot = w.block;
    if (--slots_[slot].warps_left > 0) continue;
    // The block retires; the next one given takes its slot.
    spent_.push_back(std::move(slots_[slot].trace));
    --resident_blocks_;
    while (!slots_[slot].trace && !queued_.empty()) {
      std::unique_ptr<BlockTrace> block = std::move(queued_.front());
      queued_.pop_front();
      place(slot, std::move(block));
    }
    if (!slots_[slot].trace && more_coming) {
      starved_ = true;  // resumes here once the next block is given
      return;
    }
  }
}

bool FunctionalSm::turn(Warp& w) {
  const std::vector<WarpInstruction>& insts = w.trace->insts;
  const KernelProgram& program = *program_;
  while (w.next < insts.size()) {
    const WarpInstruction& wi = insts[w.next++];
    ++stats_.warp_insts;
    const uint32_t active = uint32_t(std::popcount(wi.active_mask));
    stats_.thread_insts += active;
    const TimedInstruction& ti = program[wi.static_id];
    if (ti.kind == InstKind::kMemory) {
      memory_instruction(ti, wi, active, *w.trace);
      break;
    }
  }
  return w.next >= insts.size();
}

void FunctionalSm::memory_instruction(const TimedInstruction& ti, const WarpInstruction& wi, uint32_t active_lanes,
                                      const WarpTrace& trace) {
  ++stats_.mem_insts;
  if (ti.space == MemSpace::kShared) {
    ++stats_.shared_requests;
    return;
  }
  if (ti.space == MemSpace::kConst) {
    ++stats_.const_requests;
    return;
  }
  // Constant loads and the like come without addresses in traces.
  LaneBuffer lane_buffer;
  const std::span<const uint64_t> lanes =
      ti.has_addresses ? trace.lane_addresses(wi, lane_buffer) : std::span<const uint64_t>();
  sectors_.clear();
  coalesce(lanes, wi.active_mask, ti.access_bytes, spec_.sm.coalesce_threads, sectors_);
  const SmAccessOp op = access_op(ti.op);
  stats_.count_sector_request(ti.space, op, uint32_t(sectors_.size()));
  if (sectors_.empty()) return;
  ++step_;
  const L1Access kind = L1CachePolicy::access_kind(spec_.memory.l1d, op, ti.space);
  const bool global_load = op == SmAccessOp::kLoad && is_global_space(ti.space);
  for (const SectorAccess& a : sectors_) {
    const uint64_t addr = a.sector * kSectorBytes;
    switch (kind) {
      case L1Access::kLoad:
        if (l1_.load_hits(addr)) {
          if (global_load) ++stats_.l1.global_ld_hit_sectors;
        } else if (std::find(missed_.begin(), missed_.end(), addr) == missed_.end()) {
          missed_.push_back(addr);  // (capacity 128: at most 4 sectors for each of 32 lanes)
          ++stats_.l1.miss_sectors;
          send(L2RequestType::kRead, addr, 0);
        }
        break;
      case L1Access::kLoadBypass:
        ++stats_.l1.miss_sectors;
        send(L2RequestType::kRead, addr, 0);
        break;
      case L1Access::kStore:
        l1_.store(addr, a.byte_mask);
        send(L2RequestType::kWrite, addr, a.byte_mask);
        break;
      case L1Access::kAtomic:
        send(L2RequestType::kAtomic, addr, a.byte_mask);
        break;
    }
  }
  // The instruction's misses return: allocate on fill (the sectors of a line
  // that come one after another in one go).
  const SectorCache& cache = l1_.cache();
  for (size_t i = 0; i < missed_.size();) {
    const uint64_t line = cache.line_addr(missed_[i]);
    uint32_t sectors = 0;
    for (; i < missed_.size() && cache.line_addr(missed_[i]) == line; ++i) sectors |= 1u << cache.sector_in_line(missed_[i]);
    l1_.fill_sectors(line, sectors);
  }
  stats_.l1.fill_sectors += missed_.size();
  missed_.clear();
}

void FunctionalSm::send(L2RequestType type, uint64_t addr, uint32_t byte_mask) {
  const SliceAddress at = locator_.locate(addr);
  requests_[at.slice].push_back(L2Request{step_, at.local, byte_mask, type});
}

void FunctionalSm::clear_requests() {
  for (std::vector<L2Request>& r : requests_) r.clear();
}

void FunctionalSm::take_spent_blocks(std::vector<std::unique_ptr<BlockTrace>>& into) {
  for (std::unique_ptr<BlockTrace>& b : spent_) into.push_back(std::move(b));
  spent_.clear();
}

SmStats FunctionalSm::take_stats() { return std::exchange(stats_, SmStats()); }

}  // namespace lockstep
