#include "memsys/functional/functional_sm.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

namespace lockstep {

FunctionalSm::FunctionalSm(const GpuSpec& spec, const AddressMap& map)
    : spec_(spec),
      l1_(spec.memory.l1d, spec.sm.unified_l1_shared_kb),
      requests_(map.slices()),
      locator_(map),
      l2_line_mask_(uint64_t(spec.memory.l2.line_bytes) - 1),
      l2_sector_shift_(uint32_t(std::countr_zero(spec.memory.l2.sector_bytes))),
      same_lines_(spec.memory.l1d.line_bytes == spec.memory.l2.line_bytes &&
                  spec.memory.l1d.sector_bytes == spec.memory.l2.sector_bytes),
      l1_sectors_are_32_(spec.memory.l1d.sector_bytes == kSectorBytes),
      l1_sectors_per_line_(spec.memory.l1d.line_bytes / spec.memory.l1d.sector_bytes),
      back_to_back_loads_(same_lines_ && l1_sectors_are_32_) {
  warps_.reserve(size_t(spec.sm.max_warps) * 2);
  sectors_.reserve(128);
  missed_.reserve(128);
}

void FunctionalSm::start_kernel(const KernelProgram& program, const Occupancy& occupancy, BlockSegments* segments) {
  program_ = &program;
  segments_ = segments;
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
  slots_[slot].reading.assign(block->warps.size(), 0);
  for (const WarpTrace& w : block->warps) {
    warps_.push_back(Warp{&w, 0, slot, false, block->continues_after(0, w.insts.size()), warps, 1});
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
  // A starved SM waits for its block: going on without it would run its
  // other blocks with the slot empty, as far as this run's limit goes.
  if (starved_ && queued_.empty() && more_coming) return;
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
    slots_[slot].reading[w.index] = UINT32_MAX;
    if (--slots_[slot].warps_left > 0) continue;
    // The block retires; the next one given takes its slot.
    spent_.push_back(std::move(slots_[slot].trace));
    slots_[slot].later.clear(spares_);
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
  const KernelProgram& program = *program_;
  for (;;) {
    // The instructions up to the next memory instruction, counted in locals
    // (nothing is stored per instruction).
    const std::vector<WarpInstruction>& insts = w.trace->insts;
    const WarpInstruction* const from = insts.data() + w.next;
    const WarpInstruction* const end = insts.data() + insts.size();
    const WarpInstruction* p = from;
    uint64_t threads = 0;
    while (p != end && program[p->static_id].kind != InstKind::kMemory)
      threads += uint32_t(std::popcount((p++)->active_mask));
    const bool memory = p != end;
    if (memory) threads += uint32_t(std::popcount(p->active_mask));
    const uint32_t taken = uint32_t(p - from) + (memory ? 1 : 0);
    w.next += taken;
    stats_.warp_insts += taken;
    stats_.thread_insts += threads;
    if (memory) {
      memory_instruction(program[p->static_id], *p, *w.trace);
      // Whether it ended: its next segment's part may be empty.
      while (w.next >= w.trace->insts.size() && w.segments_more) next_part(w);
      return w.next >= w.trace->insts.size();
    }
    if (!w.segments_more) return true;
    next_part(w);
  }
}

void FunctionalSm::next_part(Warp& w) {
  BlockSlot& b = slots_[w.block];
  const BlockTrace& segment = b.later.get(segments_, *b.trace, w.next_segment, spares_);
  static const WarpTrace kEmpty;
  w.trace = w.index < segment.warps.size() ? &segment.warps[w.index] : &kEmpty;
  w.next = 0;
  b.reading[w.index] = w.next_segment;
  w.segments_more = b.trace->continues_after(w.next_segment, w.trace->insts.size());
  ++w.next_segment;
  // Segments none of the block's warps reads go.
  b.later.drop_before(*b.trace, *std::min_element(b.reading.begin(), b.reading.end()), spares_);
}

void FunctionalSm::memory_instruction(const TimedInstruction& ti, const WarpInstruction& wi, const WarpTrace& trace) {
  ++stats_.mem_insts;
  if (ti.space == MemSpace::kShared) {
    ++stats_.shared_requests;
    return;
  }
  if (ti.space == MemSpace::kConst) {
    ++stats_.const_requests;
    return;
  }
  const SmAccessOp op = access_op(ti.op);
  const L1Access kind = L1CachePolicy::access_kind(spec_.memory.l1d, op, ti.space);
  if ((kind == L1Access::kLoad || kind == L1Access::kStore) && back_to_back_loads_ && wi.active_mask == 0xffffffffu &&
      ti.has_addresses) {
    const uint32_t bytes = std::clamp(uint32_t(ti.access_bytes), 1u, 128u);
    uint64_t first = 0, stride = 0;
    if (trace.addrs.strided(wi.addr_ref, 32, &first, &stride) && stride == bytes && first <= UINT64_MAX - 32u * bytes) {
      if (kind == L1Access::kLoad) {
        back_to_back_load(ti, op, first, bytes);
        return;
      }
      if (first % kSectorBytes == 0 && std::clamp(spec_.sm.coalesce_threads, 1u, 32u) * bytes % kSectorBytes == 0) {
        whole_sector_store(ti, op, first, bytes);
        return;
      }
    }
  }
  // Constant loads and the like come without addresses in traces.
  sectors_.clear();
  // sectors_ whole sectors, consecutive, ascending (or false: not known).
  const bool consecutive =
      coalesce_instruction(trace, wi, ti.has_addresses, ti.access_bytes, spec_.sm.coalesce_threads, sectors_);
  stats_.count_sector_request(ti.space, op, uint32_t(sectors_.size()));
  if (sectors_.empty()) return;
  ++step_;
  const bool global_load = op == SmAccessOp::kLoad && is_global_space(ti.space);
  const SectorCache& cache = l1_.cache();
  // Consecutive sectors the L1's own size: a line's accesses run to the line's end.
  const bool runs = consecutive && l1_sectors_are_32_;
  // A cached load's accesses to one line one after another are looked up
  // together even when a sector comes again (8-lane groups of a misaligned
  // warp share their boundary sectors): nothing changes the L1 between them
  // but the line becoming most recently used, so a sector met again finds
  // what it found the first time, and its miss is already being fetched
  // (line_accesses counts each access). Other accesses take each sector once.
  const bool repeats_join = kind == L1Access::kLoad;
  for (size_t i = 0; i < sectors_.size();) {
    // The accesses from i on to one L1 line, each sector once (or, for a
    // cached load, again).
    const uint64_t line = cache.line_addr(sectors_[i].sector * kSectorBytes);
    uint32_t sectors = 0;
    size_t end = i;
    if (runs) {
      const uint32_t s = cache.sector_in_line(sectors_[i].sector * kSectorBytes);
      end = i + std::min<size_t>(sectors_.size() - i, l1_sectors_per_line_ - s);
      sectors = uint32_t(((uint64_t(1) << (end - i)) - 1) << s);
    } else if (repeats_join) {
      for (; end < sectors_.size(); ++end) {
        const uint64_t addr = sectors_[end].sector * kSectorBytes;
        if (cache.line_addr(addr) != line) break;
        sectors |= 1u << cache.sector_in_line(addr);
      }
    } else {
      for (; end < sectors_.size(); ++end) {
        const uint64_t addr = sectors_[end].sector * kSectorBytes;
        const uint32_t bit = 1u << cache.sector_in_line(addr);
        if (cache.line_addr(addr) != line || (sectors & bit) != 0) break;
        sectors |= bit;
      }
    }
    line_accesses(kind, global_load, line, sectors, i, end);
    i = end;
  }
  fill_missed();
}

void FunctionalSm::fill_missed() {
  // The instruction's misses return: allocate on fill, a line's sectors in one go.
  for (const LineSectors& m : missed_) {
    l1_.fill_sectors(m.line, m.sectors);
    stats_.l1.fill_sectors += uint32_t(std::popcount(m.sectors));
  }
  missed_.clear();
}

void FunctionalSm::back_to_back_load(const TimedInstruction& ti, SmAccessOp op, uint64_t first, uint32_t bytes) {
  // What coalesce_strided() makes of it: each lane group's bytes one range,
  // each sector of it one access, the groups' ranges one after another; so
  // the accesses ascend, a sector coming again only as the next group's
  // first. Counted per sector instead of listed.
  const uint32_t group = std::clamp(spec_.sm.coalesce_threads, 1u, 32u);
  const uint64_t base = first / kSectorBytes, last = (first + 32u * uint64_t(bytes) - 1) / kSectorBytes;
  // Each sector once when the groups' ranges start and end on sector
  // boundaries (the common, aligned case); else the accesses of sector base + i.
  const bool once = first % kSectorBytes == 0 && group * bytes % kSectorBytes == 0;
  std::array<uint8_t, 32 * 128 / kSectorBytes + 2> times;  // (at most 32 each)
  uint32_t accesses = uint32_t(last - base + 1);
  if (!once) {
    std::fill_n(times.begin(), size_t(last - base + 1), uint8_t(0));
    accesses = 0;
    for (uint32_t g = 0; g < 32; g += group) {
      const uint64_t lo = first + uint64_t(g) * bytes, hi = lo + uint64_t(std::min(group, 32 - g)) * bytes;
      const uint64_t s0 = lo / kSectorBytes, s1 = (hi - 1) / kSectorBytes;
      for (uint64_t s = s0; s <= s1; ++s) ++times[size_t(s - base)];
      accesses += uint32_t(s1 - s0 + 1);
    }
  }
  stats_.count_sector_request(ti.space, op, accesses);
  ++step_;
  const bool global_load = op == SmAccessOp::kLoad && is_global_space(ti.space);
  const SectorCache& cache = l1_.cache();
  // Line by line, as line_accesses() takes a cached load's run of accesses to one line.
  for (uint64_t s = base; s <= last;) {
    const uint64_t line = cache.line_addr(s * kSectorBytes);
    const uint32_t in_line = cache.sector_in_line(s * kSectorBytes);
    const uint64_t end = std::min(last + 1, s + (l1_sectors_per_line_ - in_line));
    const uint32_t sectors = uint32_t(((uint64_t(1) << (end - s)) - 1) << in_line);
    const uint32_t hits = l1_.load_hit_sectors(line, sectors);
    if (global_load && once) {
      stats_.l1.global_ld_hit_sectors += uint32_t(std::popcount(hits));
    } else if (global_load) {
      for (uint32_t m = hits; m != 0; m &= m - 1)
        stats_.l1.global_ld_hit_sectors += times[size_t(s - base) + uint32_t(std::countr_zero(m)) - in_line];
    }
    if (const uint32_t missed = sectors & ~hits; missed != 0) {
      missed_.push_back(LineSectors{line, missed});
      stats_.l1.miss_sectors += uint32_t(std::popcount(missed));
      // (The L1's lines and sectors are the L2's: one request.)
      const SliceAddress at = locator_.locate(line);
      add_request(at.slice, L2RequestType::kRead, at.local, missed, 0);
    }
    s = end;
  }
  fill_missed();
}

void FunctionalSm::whole_sector_store(const TimedInstruction& ti, SmAccessOp op, uint64_t first, uint32_t bytes) {
  // What coalesce_strided() makes of it: each sector once, whole, ascending.
  const uint64_t base = first / kSectorBytes, last = (first + 32u * uint64_t(bytes) - 1) / kSectorBytes;
  stats_.count_sector_request(ti.space, op, uint32_t(last - base + 1));
  ++step_;
  const SectorCache& cache = l1_.cache();
  // Line by line, as line_accesses() takes a store's run of whole sectors to one line.
  for (uint64_t s = base; s <= last;) {
    const uint64_t line = cache.line_addr(s * kSectorBytes);
    const uint32_t in_line = cache.sector_in_line(s * kSectorBytes);
    const uint64_t end = std::min(last + 1, s + (l1_sectors_per_line_ - in_line));
    const uint32_t sectors = uint32_t(((uint64_t(1) << (end - s)) - 1) << in_line);
    l1_.store_sectors(line, sectors, 0xffffffffu);
    // (The L1's lines and sectors are the L2's: one request.)
    const SliceAddress at = locator_.locate(line);
    add_request(at.slice, L2RequestType::kWrite, at.local, sectors, 0xffffffffu);
    s = end;
  }
}

void FunctionalSm::line_accesses(L1Access kind, bool global_load, uint64_t line, uint32_t sectors, size_t begin,
                                 size_t end) {
  const std::span<const SectorAccess> accesses(sectors_.data() + begin, end - begin);
  switch (kind) {
    case L1Access::kLoad: {
      const uint32_t hits = l1_.load_hit_sectors(line, sectors);
      if (global_load) {
        if (accesses.size() == size_t(std::popcount(sectors))) {
          stats_.l1.global_ld_hit_sectors += uint32_t(std::popcount(hits));
        } else {  // a sector met again hits again when it hit
          const SectorCache& cache = l1_.cache();
          for (const SectorAccess& a : accesses)
            stats_.l1.global_ld_hit_sectors += hits >> cache.sector_in_line(a.sector * kSectorBytes) & 1;
        }
      }
      uint32_t missed = sectors & ~hits;
      for (const LineSectors& m : missed_)
        if (m.line == line) missed &= ~m.sectors;  // already fetched by this instruction
      if (missed == 0) return;
      missed_.push_back(LineSectors{line, missed});  // (at most 128: 4 sectors for each of 32 lanes)
      stats_.l1.miss_sectors += uint32_t(std::popcount(missed));
      send_sectors(L2RequestType::kRead, line, missed, accesses);
      return;
    }
    case L1Access::kLoadBypass:
      stats_.l1.miss_sectors += accesses.size();
      send_sectors(L2RequestType::kRead, line, sectors, accesses);
      return;
    case L1Access::kStore: {
      const uint32_t first_bytes = accesses.front().byte_mask;
      bool same_bytes = true;
      for (const SectorAccess& a : accesses) same_bytes &= a.byte_mask == first_bytes;
      if (same_bytes) {  // (whole sectors, mostly)
        l1_.store_sectors(line, sectors, first_bytes);
      } else {
        uint32_t bytes[kMaxSectorsPerLine] = {};
        const SectorCache& cache = l1_.cache();
        for (const SectorAccess& a : accesses) bytes[cache.sector_in_line(a.sector * kSectorBytes)] = a.byte_mask;
        l1_.store_sectors(line, sectors, bytes);
      }
      send_sectors(L2RequestType::kWrite, line, sectors, accesses);
      return;
    }
    case L1Access::kAtomic:
      send_sectors(L2RequestType::kAtomic, line, sectors, accesses);
      return;
  }
}

void FunctionalSm::send_sectors(L2RequestType type, uint64_t line, uint32_t sectors,
                                std::span<const SectorAccess> accesses) {
  const uint32_t bytes = type == L2RequestType::kRead ? 0 : accesses.front().byte_mask;
  bool same_bytes = true;
  if (type != L2RequestType::kRead)
    for (const SectorAccess& a : accesses) same_bytes &= a.byte_mask == bytes;
  if (same_lines_ && same_bytes) {
    // The L1 line is the L2 line, its sectors the L2's: one request, in whatever order.
    const SliceAddress at = locator_.locate(line);
    add_request(at.slice, type, at.local, sectors, bytes);
    return;
  }
  const SectorCache& cache = l1_.cache();
  for (const SectorAccess& a : accesses) {
    const uint64_t addr = a.sector * kSectorBytes;
    // Each sector of `sectors` once, by its first access (a load's accesses
    // may meet a sector again).
    const uint32_t bit = 1u << cache.sector_in_line(addr);
    if ((sectors & bit) == 0) continue;
    sectors &= ~bit;
    const SliceAddress at = locator_.locate(addr);
    const uint32_t l2_bit = 1u << uint32_t((at.local & l2_line_mask_) >> l2_sector_shift_);
    add_request(at.slice, type, at.local & ~l2_line_mask_, l2_bit, type == L2RequestType::kRead ? 0 : a.byte_mask);
  }
}

void FunctionalSm::add_request(uint32_t slice, L2RequestType type, uint64_t line, uint32_t sectors,
                               uint32_t byte_mask) {
  std::vector<L2Request>& requests = requests_[slice];
  if (!requests.empty()) {
    L2Request& last = requests.back();
    if (last.line == line && last.step == step_ && last.type == type && last.byte_mask == byte_mask &&
        (last.sectors & sectors) == 0) {
      last.sectors |= sectors;
      return;
    }
  }
  if (step_ > kMaxStepsPerKernel) [[unlikely]]
    throw std::runtime_error("memory model: one SM looked up more than " + std::to_string(kMaxStepsPerKernel) +
                             " memory instructions in one kernel (more than the model counts)");
  requests.push_back(L2Request{line, uint32_t(step_), sectors, byte_mask, type});
}

void FunctionalSm::clear_requests(bool release) {
  for (std::vector<L2Request>& r : requests_) {
    if (release) std::vector<L2Request>().swap(r);
    else r.clear();
  }
}

void FunctionalSm::take_spent_blocks(std::vector<std::unique_ptr<BlockTrace>>& into) {
  for (std::unique_ptr<BlockTrace>& b : spent_) into.push_back(std::move(b));
  spent_.clear();
}

SmStats FunctionalSm::take_stats() { return std::exchange(stats_, SmStats()); }

}  // namespace lockstep
