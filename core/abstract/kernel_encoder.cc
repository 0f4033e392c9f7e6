#include "core/abstract/kernel_encoder.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/shared_memory_banks.h"
#include "core/sm_memory_access.h"

namespace lockstep {
namespace {

// The active lanes of a warp instruction. Without the popcnt instruction (baseline
// x86-64) std::popcount is a library call; this once per instruction is not.
uint32_t active_lanes(uint32_t mask) {
  mask -= (mask >> 1) & 0x55555555u;
  mask = (mask & 0x33333333u) + ((mask >> 2) & 0x33333333u);
  return (((mask + (mask >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

}  // namespace

KernelEncoder::KernelEncoder(const SmSpec& sm, uint32_t sms, const MemoryLatencies& latencies, CacheHitLevels* levels)
    : sm_(sm),
      sms_(std::max(sms, 1u)),
      latencies_(latencies),
      levels_(levels),
      shared_banks_(sm.shared_banks, sm.shared_bank_bytes) {
  if (levels_) {
    l1_banking_ = L1dBanking(levels_->l1_spec());
  }
  lines_.reserve(128);
  sectors_.reserve(128);
}

MemoryCost KernelEncoder::cost(const TimedInstruction& ti, const WarpTrace& w, const WarpInstruction& wi, uint32_t sm) {
  MemoryCost c;
  c.latency = sm_.perfect_memory_latency;
  // The lane addresses are read only where they decide the cost: shared
  // memory's bank conflicts and the full memory system's caches.
  if (ti.space == MemSpace::kShared) {
    LaneBuffer scratch;
    const std::span<const uint64_t> lanes = ti.has_addresses ? w.lane_addresses(wi, scratch) : std::span<const uint64_t>();
    const uint32_t waves = std::max(1u, shared_banks_.wavefronts(&ti, lanes, ti.access_bytes));
    c.busy = uint16_t(std::min<uint32_t>(waves, UINT16_MAX));
    c.latency = sm_.shared_latency + waves - 1;
    return c;
  }
  if (ti.space == MemSpace::kConst || !levels_ || !ti.has_addresses) return c;
  if (wi.active_mask == 0) return c;
  // The sector requests of the sub-warp groups (core/coalescer.h), as the LD/ST
  // unit makes them; from the stride form of the lanes' addresses when the trace
  // holds them so (the same requests, without the addresses written out).
  sectors_.clear();
  // ascending: sectors_ are whole sectors, consecutive, ascending (each line after the last).
  const bool ascending = coalesce_instruction(w, wi, true, ti.access_bytes, sm_.coalesce_threads, sectors_);
  if (sectors_.empty()) return c;
  // The L1 looks up, each cycle, the next requests to one line, one per data bank
  // (L1DataCache::lookup); and the lines they touch, with each line's requests.
  uint32_t lookups = 0;
  lines_.clear();
  for (size_t i = 0; i < sectors_.size();) {
    const uint64_t line = sectors_[i].sector / 4;
    ++lookups;
    uint32_t banks_used = 0;
    for (; i < sectors_.size() && sectors_[i].sector / 4 == line; ++i) {
      const uint32_t bank = l1_banking_.bank(sectors_[i].sector);
      if (banks_used >> bank & 1u) break;
      banks_used |= 1u << bank;
      LineTouch* t = nullptr;
      if (!lines_.empty() && lines_.back().line == line) {
        t = &lines_.back();
      } else {
        if (!ascending)
          for (LineTouch& x : lines_)
            if (x.line == line) t = &x;
        if (!t) t = &lines_.emplace_back(LineTouch{line, 0, 0, {}});
      }
      const uint32_t s = uint32_t(sectors_[i].sector % 4);
      t->sectors |= 1u << s;
      t->bytes[s] |= sectors_[i].byte_mask;
      ++t->requests;
    }
  }
  // As the L1D decides (L1DataCache::access): local and texture always cached, global when l1d.cache_global.
  const SmAccessOp op = access_op(ti.op);
  const bool cached = ti.space == MemSpace::kLocal || ti.space == MemSpace::kTexture || levels_->l1_caches_global();
  const LineAccessKind kind = op == SmAccessOp::kAtomic ? LineAccessKind::kAtomic
                              : op == SmAccessOp::kStore ? LineAccessKind::kStore
                              : cached                   ? LineAccessKind::kLoad
                                                         : LineAccessKind::kLoadUncached;
  uint32_t latency = 0, l2 = 0, dram = 0, writebacks = 0;
  for (const LineTouch& t : lines_) {
    const LineCost lc = levels_->access(sm, t.line * 128, t.sectors, t.bytes, kind, t.requests);
    latency = std::max(latency, latencies_.of(lc.level));
    l2 += lc.l2_sectors;
    dram += lc.dram_reads;
    writebacks += lc.dram_writebacks;
  }
  c.busy = uint16_t(std::min<uint32_t>(lookups, UINT16_MAX));
  c.latency = latency;
  c.l2_sectors = uint16_t(std::min<uint32_t>(l2, UINT16_MAX));
  c.dram_sectors = uint16_t(std::min<uint32_t>(dram, UINT16_MAX));
  c.dram_writebacks = uint16_t(std::min<uint32_t>(writebacks, UINT16_MAX));
  return c;
}

[[gnu::always_inline]] inline uint32_t KernelEncoder::cost_index(uint32_t static_id, const MemoryCost& c,
                                                                 std::vector<MemoryCost>& costs) {
  // Mostly one of the costs the same static instruction had lately (the warps
  // of a block run the same code, with few distinct access patterns).
  if (static_id >= recent_costs_.size()) {
    std::array<uint32_t, kRecentCosts> none;
    none.fill(UINT32_MAX);
    recent_costs_.resize(size_t(static_id) + 1, none);
  }
  std::array<uint32_t, kRecentCosts>& recent = recent_costs_[static_id];
  size_t k = 0;
  while (k < kRecentCosts && recent[k] != UINT32_MAX && !(costs[recent[k]] == c)) ++k;
  uint32_t id;
  if (k < kRecentCosts && recent[k] != UINT32_MAX) {
    id = recent[k];
  } else {
    const auto [it, added] = cost_ids_.try_emplace(c, uint32_t(costs.size()));
    if (added) costs.push_back(c);
    id = it->second;
    k = kRecentCosts - 1;
  }
  // Most recent first.
  for (; k > 0; --k) recent[k] = recent[k - 1];
  recent[0] = id;
  return id;
}

namespace {

// A kernel's thread-block count and per-SM arrays index with 32 bits.
void check_index_room(const SmWorkload& work, uint32_t kernel) {
  constexpr uint64_t kRoom = uint64_t(UINT32_MAX) - 1;
  if (work.path.size() > kRoom || work.memory.size() > kRoom || work.warps.size() > kRoom || work.blocks.size() > kRoom)
    throw std::runtime_error("kernel " + std::to_string(kernel) + ": more than 2^32 basic blocks, memory instructions, "
                             "warps or blocks on one SM (abstract model)");
}

// The kernel's blocks, decoded one chunk ahead on the source's thread when it can.
std::unique_ptr<BlockCursor> open_kernel_blocks(TraceSource& trace, uint32_t kernel) {
  std::unique_ptr<BlockCursor> cursor = trace.open_blocks_ahead(kernel, 0);
  return cursor ? std::move(cursor) : trace.open_blocks(kernel);
}

// Appends to `work`'s path the basic blocks of the fall-through run of
// `length` instructions from static instruction `first`; throws when the run
// is not made of whole blocks (`hint`: what may have caused it).
void append_path(const KernelWorkload& out, uint32_t first, uint32_t length, SmWorkload& work, uint32_t kernel,
                 const char* hint) {
  if (!out.blocks.for_each_block(first, length, out.fall, [&](uint32_t b) { work.path.push_back(b); }))
    throw std::runtime_error("kernel " + std::to_string(kernel) + ": a warp's path is not made of whole basic blocks" +
                             hint);
}

}  // namespace

template <typename F>
void KernelEncoder::for_each_memory_access(const KernelProgram& program, const BlockTrace& block, F&& f) {
  // Each warp's memory instructions (one pass over its trace), then all of
  // them by (instruction index, warp).
  order_.clear();
  for (uint32_t k = 0; k < block.warps.size(); ++k) {
    const std::vector<WarpInstruction>& insts = block.warps[k].insts;
    for (size_t i = 0; i < insts.size(); ++i)
      if (program[insts[i].static_id].kind == InstKind::kMemory) order_.push_back(uint64_t(i) << 32 | k);
  }
  std::sort(order_.begin(), order_.end());
  for (const uint64_t key : order_) {
    const uint32_t k = uint32_t(key);
    const WarpTrace& w = block.warps[k];
    const WarpInstruction& wi = w.insts[key >> 32];
    f(k, w, wi, program[wi.static_id]);
  }
}

void KernelEncoder::cost_block(const KernelProgram& program, const BlockTrace& block, uint32_t sm,
                               std::vector<MemoryCost>& costs) {
  if (block_costs_.size() < block.warps.size()) block_costs_.resize(block.warps.size());
  for (size_t k = 0; k < block.warps.size(); ++k) block_costs_[k].clear();
  for_each_memory_access(program, block, [&](uint32_t k, const WarpTrace& w, const WarpInstruction& wi,
                                             const TimedInstruction& ti) {
    block_costs_[k].push_back(cost_index(wi.static_id, cost(ti, w, wi, sm), costs));
  });
}

void KernelEncoder::append_costs(const WarpTrace& w, uint32_t index, SmWorkload& work, EncodedWarp& ew) {
  uint64_t lanes = 0;
  for (const WarpInstruction& wi : w.insts) lanes += active_lanes(wi.active_mask);
  for (const uint32_t id : block_costs_[index]) work.memory.push_back(id);
  ew.thread_insts += lanes;
  work.warp_insts += w.insts.size();
}

template <typename AddWarp>
void KernelEncoder::encode_block(const KernelProgram& program, const BlockTrace& block, KernelWorkload& out,
                                 AddWarp&& add_warp) {
  const uint32_t sm = uint32_t(out.blocks_read % sms_);
  cost_block(program, block, sm, out.costs);
  SmWorkload& work = out.sms[sm];
  EncodedBlock eb;
  eb.order = uint32_t(out.blocks_read++);
  eb.warp_begin = uint32_t(work.warps.size());
  for (uint32_t k = 0; k < block.warps.size(); ++k) {
    EncodedWarp ew;
    add_warp(block.warps[k], k, sm, work, ew);
    work.warps.push_back(ew);
  }
  eb.warp_end = uint32_t(work.warps.size());
  work.blocks.push_back(eb);
}

KernelWorkload KernelEncoder::encode(TraceSource& trace, uint32_t kernel, KernelProgram& program, uint32_t l1_kb) {
  KernelWorkload out;
  out.sms.resize(sms_);
  cost_ids_.clear();
  recent_costs_.clear();
  if (levels_) levels_->start_kernel(l1_kb);
  // Pass over the trace: each warp's fall-through runs (first static, length) and memory costs.
  struct Run {
    uint32_t first, length;
  };
  std::vector<ChunkedArray<Run>> runs(sms_);
  BasicBlocks::Builder builder;
  const StaticTable& table = trace.static_table(kernel);
  std::unique_ptr<BlockCursor> cursor = open_kernel_blocks(trace, kernel);
  BlockTrace block;
  while (cursor->next(block)) {
    program.extend(table);
    out.fall.grow(table);
    encode_block(program, block, out, [&](const WarpTrace& w, uint32_t k, uint32_t sm, SmWorkload& work, EncodedWarp& ew) {
      ew.path_begin = uint32_t(runs[sm].size());
      ew.memory_begin = uint32_t(work.memory.size());
      out.fall.runs(w, [&](uint32_t first, uint32_t last, uint32_t length) {
        runs[sm].push_back(Run{first, length});
        builder.add_run(first, last);
      });
      ew.path_end = uint32_t(runs[sm].size());
      append_costs(w, k, work, ew);
      check_index_room(work, kernel);
    });
  }
  if (levels_) out.traffic = levels_->traffic();
  out.blocks = builder.build(table, program, out.fall);
  // Runs -> basic-block paths.
  for (uint32_t sm = 0; sm < sms_; ++sm) {
    SmWorkload& work = out.sms[sm];
    for (size_t i = 0; i < work.warps.size(); ++i) {
      EncodedWarp& ew = work.warps[i];
      const uint32_t begin = uint32_t(work.path.size());
      for (uint32_t r = ew.path_begin; r < ew.path_end; ++r)
        append_path(out, runs[sm][r].first, runs[sm][r].length, work, kernel, "");
      ew.path_begin = begin;
      ew.path_end = uint32_t(work.path.size());
      check_index_room(work, kernel);
    }
    runs[sm] = {};
  }
  return out;
}

KernelWorkload KernelEncoder::scan(TraceSource& trace, uint32_t kernel, KernelProgram& program, uint32_t l1_kb) {
  KernelWorkload out;
  if (levels_) {
    levels_->save_l2();
    levels_->start_kernel(l1_kb);
  }
  BasicBlocks::Builder builder;
  const StaticTable& table = trace.static_table(kernel);
  std::unique_ptr<BlockCursor> cursor = open_kernel_blocks(trace, kernel);
  BlockTrace block;
  while (cursor->next(block)) {
    program.extend(table);
    out.fall.grow(table);
    const uint32_t sm = uint32_t(out.blocks_read++ % sms_);
    for (const WarpTrace& w : block.warps)
      out.fall.runs(w, [&](uint32_t first, uint32_t last, uint32_t) { builder.add_run(first, last); });
    // Only the caches' state and traffic matter here: the accesses that reach
    // them, in the order encode() takes them.
    if (levels_)
      for_each_memory_access(program, block, [&](uint32_t, const WarpTrace& w, const WarpInstruction& wi,
                                                 const TimedInstruction& ti) {
        if (ti.space != MemSpace::kShared) cost(ti, w, wi, sm);
      });
  }
  if (levels_) {
    out.traffic = levels_->traffic();
    levels_->restore_l2();
  }
  out.blocks = builder.build(table, program, out.fall);
  return out;
}

void KernelEncoder::start(TraceSource& trace, uint32_t kernel, uint32_t l1_kb, KernelWorkload& work) {
  work.sms.clear();
  work.sms.resize(sms_);
  work.costs.clear();
  work.blocks_read = 0;
  cost_ids_.clear();
  recent_costs_.clear();
  if (levels_) levels_->start_kernel(l1_kb);
  stream_table_ = &trace.static_table(kernel);
  stream_kernel_ = kernel;
  stream_.reset();  // (one cursor per kernel at a time)
  stream_ = open_kernel_blocks(trace, kernel);
}

bool KernelEncoder::read_more(KernelProgram& program, KernelWorkload& out, uint64_t warp_insts) {
  if (!stream_) return false;
  const uint64_t first = out.blocks_read;
  uint64_t insts = 0;
  BlockTrace block;
  while (out.blocks_read - first < 2 * uint64_t(sms_) || insts < warp_insts || out.blocks_read % sms_ != 0) {
    if (!stream_->next(block)) {
      stream_.reset();
      if (levels_ && !(levels_->traffic() == out.traffic))
        throw std::runtime_error("kernel " + std::to_string(stream_kernel_) +
                                 ": read twice, its trace gave other memory traffic the second time");
      return false;
    }
    program.extend(*stream_table_);
    out.fall.grow(*stream_table_);
    encode_block(program, block, out, [&](const WarpTrace& w, uint32_t k, uint32_t sm, SmWorkload& work, EncodedWarp& ew) {
      ew.path_begin = uint32_t(work.path.size());
      ew.memory_begin = uint32_t(work.memory.size());
      out.fall.runs(w, [&](uint32_t first_static, uint32_t, uint32_t length) {
        append_path(out, first_static, length, work, stream_kernel_, " (read twice, the trace changed?)");
      });
      ew.path_end = uint32_t(work.path.size());
      append_costs(w, k, work, ew);
      insts += w.insts.size();
      check_index_room(work, stream_kernel_);
    });
  }
  return true;
}

}  // namespace lockstep
