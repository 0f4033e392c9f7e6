#include "core/sm.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <span>

#include "core/coalescer.h"
#include "core/shared_memory_banks.h"

namespace lockstep {

Sm::Sm(uint32_t id, const SmSpec& spec) : id_(id), spec_(spec) {
  warps_.resize(spec.max_warps);
  blocks_.resize(spec.max_blocks);
  spent_blocks_.reserve(spec.max_blocks);
  size_t pipes = 0;
  for (const UnitSpec& u : spec.units) {
    unit_first_pipe_.push_back(uint32_t(pipes));
    pipes += std::max(u.per_subcore, 1u);
  }
  unit_free_at_.assign(spec.subcores, std::vector<uint64_t>(pipes, 0));
  collector_free_at_.assign(spec.subcores, std::vector<uint64_t>(std::max(spec.collector_units, 1u), 0));
  last_issued_.assign(spec.subcores, UINT32_MAX);
  last_fetched_.assign(spec.subcores, UINT32_MAX);
  candidates_.resize(spec.subcores);
  last_stall_.assign(spec.subcores, StallReason::kIdle);
  stats_.unit_issues.assign(spec.units.size(), 0);
  const uint32_t lines = std::max(1u, spec.icache_kb * 1024 / std::max(1u, spec.icache_line_bytes));
  icache_sets_ = std::max(1u, lines / std::max(1u, spec.icache_ways));
  icache_.resize(size_t(icache_sets_) * std::max(1u, spec.icache_ways));
}

void Sm::attach_memory(const L1dSpec& l1d, LatchedQueue<MemPacket>* to_memory, LatchedQueue<MemPacket>* from_memory) {
  l1_ = std::make_unique<L1DataCache>(id_, l1d, spec_.unified_l1_shared_kb, spec_.ldst_queue_entries);
  l1_->connect(to_memory, from_memory);
  coalesced_.reserve(128);
}

bool Sm::can_accept(const Residency& r, const KernelLaunch& l, const SmSpec& spec) {
  if (r.blocks >= l.occupancy.blocks_per_sm) return false;
  if (r.blocks > 0 && r.kernel != l.kernel_index) return false;  // one kernel per SM at a time
  return r.warps + l.warps_per_block <= spec.max_warps;
}

void Sm::accept(const KernelLaunch& l, std::unique_ptr<BlockTrace> block, uint64_t now) {
  if (current_kernel_ != l.kernel_index) {
    // New code: the instruction cache holds another kernel's lines.
    for (ICacheLine& line : icache_) line = ICacheLine();
    current_kernel_ = l.kernel_index;
    if (l1_) l1_->start_kernel(l.occupancy.l1_kb, l.stat_slot);  // L1D is not coherent: invalidated per kernel
  }
  program_ = l.program;
  sleep_until_ = 0;
  uint32_t slot = 0;
  while (blocks_[slot].active) ++slot;
  Block& b = blocks_[slot];
  b.active = true;
  b.trace = std::move(block);
  b.warp_slots.clear();
  b.at_barrier = 0;
  b.live_warps = 0;
  ++resident_blocks_;
  ++stats_.blocks_launched;
  for (const WarpTrace& wt : b.trace->warps) {
    uint32_t w = 0;
    while (warps_[w].active) ++w;
    Warp& warp = warps_[w];
    warp = Warp();
    warp.active = true;
    warp.block = slot;
    warp.trace = &wt;
    warp.age = launch_seq_++;
    warp.fetch_ready = now;
    if (!wt.insts.empty()) warp.next_static = wt.insts.front().static_id;
    b.warp_slots.push_back(w);
    ++b.live_warps;
    ++resident_warps_;
  }
  // Warps with an empty trace finish at once.
  for (uint32_t w : std::vector<uint32_t>(b.warp_slots)) finish_warp_if_done(w);
}

void Sm::finish_warp_if_done(uint32_t slot) {
  Warp& w = warps_[slot];
  if (!w.active || w.next_issue < w.trace->insts.size() || w.outstanding > 0) return;
  w.active = false;
  --resident_warps_;
  Block& b = blocks_[w.block];
  --b.live_warps;
  // A warp that ends releases a barrier the others are waiting at.
  if (b.live_warps > 0 && b.at_barrier == b.live_warps) barrier_releases_.push_back(w.block);
  if (b.live_warps == 0) retire_block(w.block);
}

void Sm::release_barriers() {
  // A barrier completed in the last cycle's issue (or by a warp that ended)
  // opens before this cycle's issue, whichever sub-core completed it.
  for (uint32_t slot : barrier_releases_) {
    Block& b = blocks_[slot];
    if (!b.active || b.at_barrier == 0) continue;
    for (uint32_t s : b.warp_slots) warps_[s].at_barrier = false;
    b.at_barrier = 0;
  }
  barrier_releases_.clear();
}

void Sm::retire_block(uint32_t slot) {
  Block& b = blocks_[slot];
  b.active = false;
  spent_blocks_.push_back(std::move(b.trace));  // its storage goes back to the trace reader (take_spent_blocks)
  --resident_blocks_;
  ++retired_blocks_;
}

bool Sm::icache_lookup(uint64_t line, uint64_t now, uint64_t& ready_at) {
  const uint32_t ways = std::max(1u, spec_.icache_ways);
  ICacheLine* set = &icache_[(line % icache_sets_) * ways];
  for (uint32_t i = 0; i < ways; ++i)
    if (set[i].tag == line) {
      set[i].last_use = now;
      ready_at = set[i].ready;
      return true;
    }
  ICacheLine* victim = set;
  for (uint32_t i = 1; i < ways; ++i)
    if (set[i].last_use < victim->last_use) victim = &set[i];
  victim->tag = line;
  victim->ready = now + spec_.icache_miss_latency;
  victim->last_use = now;
  ready_at = victim->ready;
  return false;
}

void Sm::fetch(uint32_t sc, uint64_t now) {
  // Up to fetch_per_cycle warps per sub-core per cycle, round robin over the
  // sub-core's slots, fill their instruction buffers; a miss ends the cycle.
  const uint32_t per = (spec_.max_warps - sc + spec_.subcores - 1) / spec_.subcores;
  uint32_t fetched = 0;
  uint32_t idx = last_fetched_[sc] == UINT32_MAX ? 0 : last_fetched_[sc] + 1;
  for (uint32_t i = 0; i < per && fetched < spec_.fetch_per_cycle; ++i, ++idx) {
    if (idx >= per) idx -= per;
    Warp& w = warps_[sc + idx * spec_.subcores];
    if (!w.active || w.next_fetch - w.next_issue >= spec_.ibuffer_entries || w.fetch_blocked_until > now) continue;
    const uint32_t size = uint32_t(w.trace->insts.size());
    if (w.next_fetch >= size) continue;
    last_fetched_[sc] = idx;
    ++fetch_attempts_;
    // The I-cache line of the next instruction; the buffer then fills with as many as fit.
    uint64_t ready = now;
    const uint64_t pc_line = (*program_)[w.trace->insts[w.next_fetch].static_id].pc / spec_.icache_line_bytes;
    if (icache_lookup(pc_line, now, ready)) {
      ++stats_.icache_hits;
    } else {
      ++stats_.icache_misses;
    }
    if (ready > now) {
      w.fetch_blocked_until = ready;
      return;
    }
    while (w.next_fetch < size && w.next_fetch - w.next_issue < spec_.ibuffer_entries) ++w.next_fetch;
    w.fetch_ready = now + 1;
    ++fetched;
  }
}

uint32_t Sm::register_bank_extra(const TimedInstruction& ti) const {
  // Each bank delivers one operand per cycle; uniform and predicate registers
  // are not in the vector banks, and an operand named twice is read once.
  uint8_t reads[64] = {};
  uint32_t worst = 0;
  const uint32_t banks = std::clamp(spec_.reg_banks, 1u, 64u);
  for (uint32_t i = 0; i < ti.num_srcs; ++i) {
    if (ti.srcs[i] >= 256) continue;
    bool repeat = false;
    for (uint32_t j = 0; j < i; ++j) repeat |= ti.srcs[j] == ti.srcs[i];
    if (!repeat) worst = std::max<uint32_t>(worst, ++reads[ti.srcs[i] % banks]);
  }
  return worst > 1 ? worst - 1 : 0;
}

void Sm::order_candidates(uint32_t sc) {
  std::vector<uint32_t>& c = candidates_[sc];
  c.clear();
  for (uint32_t slot = sc; slot < spec_.max_warps; slot += spec_.subcores)
    if (warps_[slot].active) c.push_back(slot);
  if (c.empty()) return;
  switch (spec_.scheduler) {
    case WarpSchedulerPolicy::kLrr:  // issue() walks the slots itself, without a list
      break;
    case WarpSchedulerPolicy::kGto: {
      // Greedy: the last issuer first, then oldest first.
      std::sort(c.begin(), c.end(), [&](uint32_t a, uint32_t b) { return warps_[a].age < warps_[b].age; });
      const uint32_t last = last_issued_[sc];
      auto it = std::find(c.begin(), c.end(), last);
      if (it != c.end()) std::rotate(c.begin(), it, it + 1);
      break;
    }
    case WarpSchedulerPolicy::kTwoLevel: {
      // Active pool: the oldest warps not waiting on memory, round robin inside.
      std::sort(c.begin(), c.end(), [&](uint32_t a, uint32_t b) {
        const bool ma = warps_[a].outstanding_memory > 0, mb = warps_[b].outstanding_memory > 0;
        if (ma != mb) return !ma;
        return warps_[a].age < warps_[b].age;
      });
      const size_t pool = std::min<size_t>(c.size(), std::max(1u, spec_.two_level_active_warps));
      const uint32_t last = last_issued_[sc];
      auto end = c.begin() + long(pool);
      auto it = std::find(c.begin(), end, last);
      if (it != end) std::rotate(c.begin(), it + 1, end);
      break;
    }
  }
}

bool Sm::try_issue(Warp& w, uint32_t slot, uint64_t now, uint32_t& units_used, StallReason& why) {
  if (w.next_issue >= w.next_fetch || w.fetch_ready > now) {
    why = StallReason::kFetch;
    return false;
  }
  if (w.at_barrier) {
    why = StallReason::kBarrier;
    return false;
  }
  // The checks read only the static instruction (hot, shared by the warps);
  // the warp's dynamic record (mask, addresses) is read once it issues.
  const TimedInstruction& ti = (*program_)[w.next_static];
  if (w.waiting_membar) {
    if (w.outstanding_memory > 0) {
      why = StallReason::kMemory;
      return false;
    }
    w.waiting_membar = false;
  }
  for (uint32_t i = 0; i < ti.num_srcs; ++i)
    if (w.pending[ti.srcs[i]]) {
      why = StallReason::kScoreboard;
      w.scoreboard_blocked = true;
      return false;
    }
  for (uint32_t i = 0; i < ti.num_dsts; ++i)
    if (w.pending[ti.dsts[i]]) {
      why = StallReason::kScoreboard;
      w.scoreboard_blocked = true;
      return false;
    }
  const uint32_t sc = slot % spec_.subcores;
  uint32_t latency = 0, bank_extra = 0;
  const bool memory = ti.kind == InstKind::kMemory;
  if (ti.kind == InstKind::kMemBarrier && w.outstanding_memory > 0) {
    why = StallReason::kMemory;
    return false;
  }
  if (ti.kind == InstKind::kDepBar) {
    // DEPBAR.LE SB0, N: at most N closed LDGSTS groups may still be in flight.
    const uint32_t allowed = ti.immediate > 0 ? uint32_t(ti.immediate) : 0;
    uint32_t in_flight = 0;
    for (uint32_t back = 1; back <= std::min(w.groups_closed, kCopyGroups); ++back)
      in_flight += w.group_pending[(w.groups_closed - back) % kCopyGroups] > 0;
    if (in_flight > allowed) {
      why = StallReason::kMemory;
      return false;
    }
  }
  if (memory) {
    if (units_used & 1u) {  // one memory instruction per scheduler per cycle
      why = StallReason::kMemory;
      return false;
    }
    if (ldst_cycle_ != now) {
      ldst_cycle_ = now;
      ldst_issued_this_cycle_ = 0;
    }
    if (ldst_free_at_ > now || ldst_issued_this_cycle_ >= spec_.ldst_issue_per_cycle || (l1_ && !l1_->can_accept())) {
      why = StallReason::kMemory;
      return false;
    }
    units_used |= 1u;
  } else if (ti.unit == kNoUnit) {
    // Control flow without a declared unit class takes the branch latency; fences a cycle.
    const bool control = ti.kind == InstKind::kBranch || ti.kind == InstKind::kExit || ti.kind == InstKind::kBarrier;
    latency = control ? spec_.branch_latency : 1;
  } else {
    const UnitSpec& u = spec_.units[ti.unit];
    if (units_used & (2u << ti.unit)) {  // dual issue needs different unit classes
      why = StallReason::kUnitBusy;
      return false;
    }
    // An operand collector unit gathers the sources: busy 1 cycle plus one per bank conflict.
    std::vector<uint64_t>& collectors = collector_free_at_[sc];
    auto collector = std::find_if(collectors.begin(), collectors.end(), [now](uint64_t t) { return t <= now; });
    if (collector == collectors.end()) {
      why = StallReason::kUnitBusy;
      return false;
    }
    const size_t base = unit_first_pipe_[ti.unit];
    std::vector<uint64_t>& free_at = unit_free_at_[sc];
    size_t pipe = SIZE_MAX;
    for (size_t p = base; p < base + std::max(u.per_subcore, 1u); ++p)
      if (free_at[p] <= now) {
        pipe = p;
        break;
      }
    if (pipe == SIZE_MAX) {
      why = StallReason::kUnitBusy;
      return false;
    }
    free_at[pipe] = now + u.initiation;
    bank_extra = register_bank_extra(ti);
    *collector = now + 1 + bank_extra;
    units_used |= 2u << ti.unit;
    latency = u.latency;
    ++stats_.unit_issues[ti.unit];
  }

  // Issue.
  const WarpInstruction& wi = w.trace->insts[w.next_issue];
  if (observer_) observer_(now, w.trace->warp_id, blocks_[w.block].trace->id, w.next_issue);
  ++w.next_issue;
  if (w.next_issue < w.trace->insts.size()) w.next_static = w.trace->insts[w.next_issue].static_id;
  ++stats_.warp_insts;
  stats_.thread_insts += std::popcount(wi.active_mask);
  last_issued_[sc] = slot;
  switch (ti.kind) {
    case InstKind::kBarrier: {
      Block& b = blocks_[w.block];
      w.at_barrier = true;
      if (++b.at_barrier == b.live_warps) barrier_releases_.push_back(w.block);
      break;
    }
    case InstKind::kMemBarrier:
      w.waiting_membar = w.outstanding_memory > 0;
      break;
    case InstKind::kLdgDepBar:
      ++w.groups_closed;
      break;
    case InstKind::kExit:
      if (wi.active_mask == 0xffffffffu && w.next_issue < w.trace->insts.size() && !w.saw_full_exit) {
        w.saw_full_exit = true;
        ++stats_.exit_then_more;
      }
      break;
    default:
      break;
  }
  if (memory) {
    execute_memory(w, slot, ti, wi, now);
  } else {
    stats_.reg_bank_conflicts += bank_extra;
    if (ti.num_dsts > 0) {
      for (uint32_t i = 0; i < ti.num_dsts; ++i) w.pending.set(ti.dsts[i]);
      ++w.outstanding;
      pending_.push(Writeback{now + latency + bank_extra, wb_seq_++, slot, &ti, false, kNoGroup});
    }
  }
  finish_warp_if_done(slot);
  return true;
}

void Sm::execute_memory(Warp& w, uint32_t slot, const TimedInstruction& ti, const WarpInstruction& wi, uint64_t now) {
  ++stats_.mem_insts;
  ++ldst_issued_this_cycle_;
  // Constant loads (LDC) and the like come without addresses in traces.
  const std::span<const uint64_t> lanes =
      ti.has_addresses ? std::span<const uint64_t>(w.trace->addrs.data() + wi.addr_begin, size_t(std::popcount(wi.active_mask)))
                       : std::span<const uint64_t>();
  uint32_t busy = 1;
  uint64_t done = now + spec_.perfect_memory_latency;
  switch (ti.space) {
    case MemSpace::kShared: {
      ++stats_.shared_requests;
      const uint32_t waves = shared_memory_wavefronts(lanes, ti.access_bytes, spec_.shared_banks, spec_.shared_bank_bytes);
      busy = std::max(1u, waves);
      stats_.shared_bank_conflicts += busy - 1;
      done = now + spec_.shared_latency + (busy - 1);
      break;
    }
    case MemSpace::kConst:
      ++stats_.const_requests;
      break;
    default: {
      coalesced_.clear();
      coalesce(lanes, wi.active_mask, ti.access_bytes, spec_.coalesce_threads, coalesced_);
      const uint32_t sectors = uint32_t(coalesced_.size());
      const bool global = ti.space == MemSpace::kGlobal || ti.space == MemSpace::kGeneric ||
                          ti.space == MemSpace::kGlobalToShared || ti.space == MemSpace::kTexture;
      const bool atomic = ti.op == MemOp::kAtomic || ti.op == MemOp::kReduction;
      const bool store = ti.op == MemOp::kStore;
      if (atomic) {
        ++stats_.atomic_requests;
      } else if (ti.space == MemSpace::kLocal) {
        stats_.local_sectors += sectors;
      } else if (global && store) {
        ++stats_.global_st_requests;
        stats_.global_st_sectors += sectors;
      } else if (global) {
        ++stats_.global_ld_requests;
        stats_.global_ld_sectors += sectors;
      }
      if (l1_ && sectors > 0) {
        // Through the L1: the instruction completes when every sector access has.
        uint32_t token;
        if (free_tokens_.empty()) {
          token = uint32_t(inflight_.size());
          inflight_.emplace_back();
        } else {
          token = free_tokens_.back();
          free_tokens_.pop_back();
        }
        uint32_t group = kNoGroup;
        if (ti.space == MemSpace::kGlobalToShared) {
          group = w.groups_closed % kCopyGroups;
          ++w.group_pending[group];
        }
        inflight_[token] = InflightAccess{slot, &ti, group, sectors, now + 1};
        const bool cached = l1d_caches(ti.space);
        const L1Access kind = atomic ? L1Access::kAtomic
                              : store ? L1Access::kStore
                              : cached ? L1Access::kLoad
                                       : L1Access::kLoadBypass;
        l1_->begin(token, kind, global && !store && !atomic, coalesced_);
        for (uint32_t i = 0; i < ti.num_dsts; ++i) w.pending.set(ti.dsts[i]);
        ++w.outstanding;
        ++w.outstanding_memory;
        return;
      }
      break;
    }
  }
  ldst_free_at_ = now + busy;
  for (uint32_t i = 0; i < ti.num_dsts; ++i) w.pending.set(ti.dsts[i]);
  ++w.outstanding;
  ++w.outstanding_memory;
  uint32_t group = kNoGroup;
  if (ti.space == MemSpace::kGlobalToShared) {
    group = w.groups_closed % kCopyGroups;
    ++w.group_pending[group];
  }
  pending_.push(Writeback{done, wb_seq_++, slot, &ti, true, group});
}

bool Sm::l1d_caches(MemSpace space) const {
  // Local memory and the texture / read-only path always cache in L1; global loads when l1d.cache_global.
  return space == MemSpace::kLocal || space == MemSpace::kTexture || l1_->caches_global();
}

void Sm::access_done(uint32_t token, uint64_t cycle) {
  InflightAccess& a = inflight_[token];
  a.ready = std::max(a.ready, cycle);
  if (--a.remaining > 0) return;
  pending_.push(Writeback{a.ready, wb_seq_++, a.warp, a.inst, true, a.copy_group});
  sleep_until_ = std::min(sleep_until_, a.ready);  // a new timed event
  free_tokens_.push_back(token);
}

void Sm::writeback(uint64_t now) {
  while (!pending_.empty() && pending_.top().cycle <= now) {
    const Writeback wb = pending_.top();
    pending_.pop();
    Warp& w = warps_[wb.warp];
    for (uint32_t i = 0; i < wb.inst->num_dsts; ++i) w.pending.reset(wb.inst->dsts[i]);
    w.scoreboard_blocked = false;
    --w.outstanding;
    if (wb.memory) --w.outstanding_memory;
    if (wb.copy_group != kNoGroup) --w.group_pending[wb.copy_group];
    finish_warp_if_done(wb.warp);
  }
}

void Sm::issue(uint32_t sc, uint64_t now) {
  uint32_t issued = 0, units_used = 0, considered = 0;
  StallReason first_reason = StallReason::kIdle;
  bool have_reason = false;
  // Offers warp `slot` the issue slot; false once the scheduler is done for the cycle.
  auto offer = [&](uint32_t slot) {
    if (issued >= spec_.issue_width) return false;
    Warp& w = warps_[slot];
    if (!w.active) return true;
    ++considered;
    StallReason why = StallReason::kIdle;
    if (w.scoreboard_blocked && !w.at_barrier && w.next_issue < w.next_fetch && w.fetch_ready <= now) {
      // Same outcome as try_issue without re-reading the instruction.
      why = StallReason::kScoreboard;
    } else if (try_issue(w, slot, now, units_used, why)) {
      ++issued;
      return true;
    }
    if (!have_reason) {
      first_reason = why;
      have_reason = true;
    }
    return true;
  };
  if (spec_.scheduler == WarpSchedulerPolicy::kLrr) {
    // Loose round robin: the sub-core's slots in order, starting after the last issuer.
    const uint32_t per = (spec_.max_warps - sc + spec_.subcores - 1) / spec_.subcores;
    const uint32_t last = last_issued_[sc];
    uint32_t k = last == UINT32_MAX ? 0 : (last - sc) / spec_.subcores + 1;
    for (uint32_t i = 0; i < per; ++i, ++k) {
      if (k >= per) k = 0;
      if (!offer(sc + k * spec_.subcores)) break;
    }
  } else {
    order_candidates(sc);
    for (uint32_t slot : candidates_[sc])
      if (!offer(slot)) break;
  }
  if (considered == 0) first_reason = StallReason::kIdle;
  if (issued == 0) ++stats_.stalls[size_t(first_reason)];
  last_stall_[sc] = first_reason;
}

bool Sm::tick(uint64_t now) {
  if (offered_.block) accept(offered_.launch, std::move(offered_.block), offered_.now);  // (moved from: null again)
  if (resident_blocks_ == 0) return false;
  ++stats_.cycles_active;
  stats_.warps_active_sum += resident_warps_;
  if (l1_ && l1_->has_work()) l1_->cycle(now, stats_, [this](uint32_t token, uint64_t cycle) { access_done(token, cycle); });
  const bool wrote_back = !pending_.empty() && pending_.top().cycle <= now;
  writeback(now);
  release_barriers();
  const bool l1_accepts = l1_ && l1_->can_accept();
  if (!wrote_back && now < sleep_until_ && l1_accepts == l1_accepted_when_slept_) {
    // Issue and fetch would repeat the last evaluated cycle exactly: repeat its stalls.
    for (uint32_t sc = 0; sc < spec_.subcores; ++sc) ++stats_.stalls[size_t(last_stall_[sc])];
    return true;
  }
  const uint64_t issued_before = stats_.warp_insts, fetches_before = fetch_attempts_;
  // Sub-cores share the LD/ST unit; the one that tries first rotates every
  // cycle (fair memory issue, papers/volta-memory-system.txt Table II).
  const uint32_t first = uint32_t(now % spec_.subcores);
  for (uint32_t i = 0; i < spec_.subcores; ++i) issue((first + i) % spec_.subcores, now);
  for (uint32_t sc = 0; sc < spec_.subcores; ++sc) fetch(sc, now);
  const bool changed =
      stats_.warp_insts != issued_before || fetch_attempts_ != fetches_before || !barrier_releases_.empty();
  sleep_until_ = changed || !spec_.gating ? 0 : next_timed_event(now);
  l1_accepted_when_slept_ = l1_ && l1_->can_accept();
  return true;
}

uint64_t Sm::quiet_until(uint64_t now) const {
  if (resident_blocks_ == 0) return UINT64_MAX;
  // The conditions under which tick() repeats the last evaluated cycle.
  if (sleep_until_ <= now + 1 || !barrier_releases_.empty()) return now + 1;
  if (l1_ && (l1_->has_work() || l1_->can_accept() != l1_accepted_when_slept_)) return now + 1;
  uint64_t until = sleep_until_;
  if (!pending_.empty()) until = std::min(until, pending_.top().cycle);
  return std::max(until, now + 1);
}

void Sm::skip_quiet_cycles(uint64_t cycles) {
  if (resident_blocks_ == 0) return;
  stats_.cycles_active += cycles;
  stats_.warps_active_sum += cycles * resident_warps_;
  for (uint32_t sc = 0; sc < spec_.subcores; ++sc) stats_.stalls[size_t(last_stall_[sc])] += cycles;
}

uint64_t Sm::next_timed_event(uint64_t now) const {
  uint64_t next = pending_.empty() ? UINT64_MAX : pending_.top().cycle;
  auto later = [&](uint64_t t) {
    if (t > now && t < next) next = t;
  };
  for (const Warp& w : warps_)
    if (w.active) {
      later(w.fetch_blocked_until);
      later(w.fetch_ready);
    }
  for (const auto& pipes : unit_free_at_)
    for (uint64_t t : pipes) later(t);
  for (const auto& collectors : collector_free_at_)
    for (uint64_t t : collectors) later(t);
  later(ldst_free_at_);
  return next;
}

SmStats Sm::take_stats() {
  SmStats s = std::move(stats_);
  stats_ = SmStats();
  stats_.unit_issues.assign(spec_.units.size(), 0);
  return s;
}

std::vector<std::string> Sm::describe_stuck_warps() const {
  std::vector<std::string> out;
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
    const Warp& w = warps_[slot];
    if (!w.active) continue;
    const Block& b = blocks_[w.block];
    char line[256];
    const char* state = w.at_barrier ? "at barrier" : w.waiting_membar ? "at MEMBAR" : w.outstanding ? "waiting for results" : "ready";
    std::snprintf(line, sizeof line, "sm %u block %s warp %u: instruction %u of %zu, %s, %u results outstanding", id_,
                  b.trace ? b.trace->id.str().c_str() : "?", w.trace->warp_id, w.next_issue, w.trace->insts.size(), state,
                  w.outstanding);
    out.emplace_back(line);
  }
  return out;
}

}  // namespace lockstep
