#include "core/sm.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "core/sm/warp_scheduler_registry.h"

namespace lockstep {
namespace {

// Each sub-core issues at most one instruction per resource per cycle: the
// LD/ST unit (bit 0) and each unit class u (bit 1 + u).
constexpr uint32_t kIssueMemory = 1u;

uint32_t issue_resource(const TimedInstruction& ti) {
  if (ti.kind == InstKind::kMemory) return kIssueMemory;
  return ti.unit == kNoUnit ? 0u : 2u << ti.unit;
}

}  // namespace

void Sm::point_at_next(WarpState& w) const {
  if (w.next_issue >= w.trace_size) return;
  w.next = w.insts[w.next_issue];
  w.next_resource = issue_resource((*program_)[w.next.static_id]);
}

Sm::Sm(uint32_t id, const SmSpec& spec)
    : SmModel(id, spec),
      warps_(spec.max_warps),
      bridges_(spec.max_warps),
      lookahead_margin_(spec.ibuffer_entries + 2),
      fetch_(spec, stats_),
      layout_(spec.max_warps, spec.subcores),
      candidates_(spec.max_warps, spec.subcores, 1 + uint32_t(spec.units.size())),
      collectors_(spec),
      units_(spec),
      ldst_(spec, stats_, writebacks_) {
  for (uint32_t sc = 0; sc < spec.subcores; ++sc) schedulers_.push_back(make_warp_scheduler(spec, sc));
  finished_in_issue_.reserve(spec.max_warps);
  last_stall_.assign(spec.subcores, StallReason::kIdle);
  stall_repeats_.assign(spec.subcores, 0);
  stats_.unit_issues.assign(spec.units.size(), 0);
}

void Sm::accept(const KernelLaunch& l, std::unique_ptr<BlockTrace> block, uint64_t now) {
  if (slots_.current_kernel() != l.kernel_index) {
    // New code: the instruction cache holds another kernel's lines.
    fetch_.start_kernel();
    ldst_.start_kernel(l.occupancy.l1_kb, l.stat_slot);  // L1D is not coherent: invalidated per kernel
  }
  program_ = l.program;
  sleep_until_ = 0;
  const uint32_t block_slot = slots_.accept(l, std::move(block));
  ++stats_.blocks_launched;
  const BlockTrace& trace = *slots_.trace(block_slot);
  const std::span<const uint32_t> slots = slots_.warp_slots(block_slot);
  for (size_t i = 0; i < slots.size(); ++i) {
    const WarpTrace& wt = trace.warps[i];
    WarpState& warp = warps_[slots[i]];
    warp = WarpState();
    warp.active = true;
    warp.block = block_slot;
    warp.read(wt);
    warp.age = launch_seq_++;
    warp.fetch_ready = now;
    warp.warp_index = uint32_t(i);
    warp.next_segment = 1;
    warp.segments_more = trace.continues_after(0, wt.insts.size());
    warp.more = warp.segments_more;
    point_at_next(warp);
    warp_changed(slots[i]);
    base_of(schedulers_[layout_.subcore(slots[i])]).add_warp(slots[i]);
  }
  // Segments too short for fetch's look-ahead: bridges from the start (once
  // every warp of the block is in place: a bridge drops segments none reads).
  for (uint32_t slot : slots)
    if (warps_[slot].more && warps_[slot].trace_size < lookahead_margin_) cross_segments(warps_[slot], slot);
  // Warps with an empty trace finish at once.
  for (uint32_t w : std::vector<uint32_t>(slots.begin(), slots.end())) finish_warp_if_done(w);
}

void Sm::finish_warp(uint32_t slot) {
  WarpState& w = warps_[slot];
  w.active = false;
  candidates_.update(slot, w);
  if (issuing_) finished_in_issue_.push_back(slot);  // (capacity max_warps: no allocation)
  else base_of(schedulers_[layout_.subcore(slot)]).remove_warp(slot);
  slots_.finish_warp(w.block, slot);
}

inline void Sm::warp_changed(uint32_t slot) {  // (only sm.cc calls it)
  fetch_.warp_changed(slot, warps_[slot]);
  candidates_.update(slot, warps_[slot]);
}

void Sm::release_barriers() {
  // A barrier completed in the last cycle's issue (or by a warp that ended)
  // opens before this cycle's issue, whichever sub-core completed it.
  slots_.release_barriers([this](uint32_t slot) {
    warps_[slot].at_barrier = false;
    candidates_.update(slot, warps_[slot]);
  });
}

[[gnu::always_inline]] inline bool Sm::ready_to_issue(WarpState& w, const TimedInstruction& ti, StallReason& why) const {
  if (w.waiting_membar) {
    if (w.outstanding_memory > 0) {
      why = StallReason::kMemory;
      return false;
    }
    w.waiting_membar = false;
  }
  if (w.scoreboard.blocks(ti)) {
    why = StallReason::kScoreboard;
    w.scoreboard_blocked = true;
    return false;
  }
  if (ti.kind == InstKind::kMemBarrier && w.outstanding_memory > 0) {
    why = StallReason::kMemory;
    return false;
  }
  // DEPBAR.LE SB0, N: at most N closed LDGSTS groups may still be in flight.
  if (ti.kind == InstKind::kDepBar && w.closed_groups_in_flight() > (ti.immediate > 0 ? uint32_t(ti.immediate) : 0)) {
    why = StallReason::kMemory;
    return false;
  }
  return true;
}

bool Sm::try_issue(WarpState& w, const TimedInstruction& ti, uint32_t slot, uint64_t now, uint32_t& units_used,
                   uint32_t& blocked, StallReason& why) {
  const uint32_t sc = layout_.subcore(slot);
  uint32_t latency = 0, bank_extra = 0;
  const bool memory = ti.kind == InstKind::kMemory;
  if (memory) {
    // One memory instruction per scheduler per cycle, into the shared LD/ST unit.
    if ((units_used & kIssueMemory) || !ldst_.can_issue(now)) {
      why = StallReason::kMemory;
      blocked |= kIssueMemory;
      return false;
    }
    units_used |= kIssueMemory;
  } else if (ti.unit == kNoUnit) {
    // Control flow without a declared unit class takes the branch latency; fences a cycle.
    const bool control = ti.kind == InstKind::kBranch || ti.kind == InstKind::kExit || ti.kind == InstKind::kBarrier;
    latency = control ? spec_.branch_latency : 1;
  } else {
    // Dual issue needs different unit classes; an operand collector unit
    // gathers the sources; a pipeline of the class must accept.
    const uint32_t resource = 2u << ti.unit;
    size_t pipe = ExecutionUnits::kNone;
    if (!(units_used & resource) && collectors_.available(sc, now)) pipe = units_.free_pipeline(sc, ti.unit, now);
    if (pipe == ExecutionUnits::kNone) {
      why = StallReason::kUnitBusy;
      blocked |= resource;
      return false;
    }
    units_.occupy(sc, pipe, ti.unit, now);
    bank_extra = collectors_.collect(sc, now, ti);
    units_used |= resource;
    latency = spec_.units[ti.unit].latency;
    ++stats_.unit_issues[ti.unit];
  }

  // Issue.
  const WarpInstruction wi = w.next;
  if (observer_) observer_(now, w.trace->warp_id, slots_.trace(w.block)->id, w.trace_base + w.next_issue);
  ++w.next_issue;
  point_at_next(w);
  ++stats_.warp_insts;
  stats_.thread_insts += std::popcount(wi.active_mask);
  base_of(schedulers_[sc]).issued(slot);
  switch (ti.kind) {
    case InstKind::kBarrier:
      w.at_barrier = true;
      slots_.arrive_at_barrier(w.block);
      break;
    case InstKind::kMemBarrier:
      w.waiting_membar = w.outstanding_memory > 0;
      break;
    case InstKind::kLdgDepBar:
      ++w.groups_closed;
      break;
    case InstKind::kExit:
      if (wi.active_mask == 0xffffffffu && w.next_issue < w.trace_size && !w.saw_full_exit) {
        w.saw_full_exit = true;
        ++stats_.exit_then_more;
      }
      break;
    default:
      break;
  }
  warp_changed(slot);
  if (memory) {
    ldst_.issue(w, slot, ti, wi, now);
  } else {
    stats_.reg_bank_conflicts += bank_extra;
    if (ti.num_dsts > 0) {
      w.scoreboard.reserve(ti);
      ++w.outstanding;
      writebacks_.push(now + latency + bank_extra, slot, &ti, false, kNoCopyGroup);
    }
  }
  if (w.more && w.trace_size - w.next_issue < lookahead_margin_) cross_segments(w, slot);
  finish_warp_if_done(slot);
  return true;
}

void Sm::cross_segments(WarpState& w, uint32_t slot) {
  // A bridge has run into its tail: read that segment's part directly, from
  // where the bridge has got to.
  if (w.bridge_head != kNoBridge) {
    const WarpTrace& part = slots_.segment(w.block, w.reading_segment).warps[w.warp_index];
    const uint32_t shift = w.bridge_head;
    w.trace_base += shift;
    w.next_fetch -= shift;
    w.next_issue -= shift;
    w.read(part);
    w.bridge_head = kNoBridge;
    w.more = w.segments_more;
  }
  if (w.more && w.trace_size - w.next_issue < lookahead_margin_) {
    // A bridge: what is left of what it reads, then the next segments' parts
    // until fetch's look-ahead fits, the last of them only up to that.
    const auto is_memory = [this](uint32_t id) { return (*program_)[id].has_addresses; };
    WarpTrace& fresh = bridge_scratch_;
    fresh.clear();
    fresh.warp_id = w.trace->warp_id;
    append_instructions(fresh, *w.trace, w.next_issue, w.trace_size, is_memory);
    const BlockTrace& first = *slots_.trace(w.block);
    w.reading_segment = kNoBridge;  // (reads no segment once the bridge holds all it has left)
    while (w.segments_more && fresh.insts.size() < lookahead_margin_) {
      const BlockTrace& segment = slots_.segment(w.block, w.next_segment);
      const WarpTrace* part = w.warp_index < segment.warps.size() ? &segment.warps[w.warp_index] : nullptr;
      const uint32_t n = part ? uint32_t(part->insts.size()) : 0;
      const uint32_t head = uint32_t(fresh.insts.size());
      const uint32_t held = std::min(n, lookahead_margin_);
      if (part) append_instructions(fresh, *part, 0, held, is_memory);
      // Only the last part taken can go on past the bridge (it filled the look-ahead).
      const bool goes_on = held < n;
      w.bridge_head = goes_on ? head : kNoBridge;
      w.reading_segment = goes_on ? w.next_segment : kNoBridge;
      w.segments_more = first.continues_after(w.next_segment, n);
      ++w.next_segment;
    }
    w.more = w.bridge_head != kNoBridge || w.segments_more;
    std::swap(bridges_[slot], fresh);
    w.trace_base += w.next_issue;
    w.next_fetch -= w.next_issue;
    w.next_issue = 0;
    w.read(bridges_[slot]);
  }
  point_at_next(w);  // its copy's addresses now refer to what it reads
  // Segments no warp of the block reads any more go.
  uint32_t needed = UINT32_MAX;
  for (uint32_t ws : slots_.warp_slots(w.block)) {
    const WarpState& other = warps_[ws];
    if (other.active) needed = std::min(needed, other.reading_segment);
  }
  slots_.drop_segments_before(w.block, needed);
}

void Sm::writeback(uint64_t now) {
  while (writebacks_.due(now)) {
    const Writeback wb = writebacks_.pop();
    WarpState& w = warps_[wb.warp];
    w.scoreboard.release(*wb.inst);
    if (w.scoreboard_blocked) {
      w.scoreboard_blocked = false;
      candidates_.update(wb.warp, w);
    }
    --w.outstanding;
    // The two-level scheduler orders warps by whether they wait for memory.
    if (wb.memory && --w.outstanding_memory == 0 && spec_.scheduler == WarpSchedulerPolicy::kTwoLevel)
      candidates_.touch(layout_.subcore(wb.warp));
    if (wb.copy_group != kNoCopyGroup) --w.group_pending[wb.copy_group];
    finish_warp_if_done(wb.warp);
  }
}

void Sm::issue(uint32_t sc, uint64_t now) {
  uint32_t issued = 0, units_used = 0;
  // Resources a warp of this sub-core already failed to get this cycle: no
  // later warp gets them either (a resource frees only between cycles).
  uint32_t blocked = 0;
  // The stall reason of the first warp in the order: the cycle's if none issues.
  StallReason first_reason = StallReason::kIdle;
  bool first_timed = false;
  // The order spans the scheduler's resident list: a warp that finishes as
  // it issues leaves that list only after the loop (finish_warp_if_done).
  const IssueOrder order = std::visit([&](auto& policy) { return policy.order(warps_); }, schedulers_[sc]);
  issuing_ = true;
  candidates_.settle(sc);  // a warp updated from here on makes the sub-core changed again
  const uint32_t ldst_refuses = ldst_.can_issue(now) ? 0u : kIssueMemory;
  // Offers the issue slot to the warp in `slot`: true if it issued, else `why` says why not.
  auto offer = [&](uint32_t slot, StallReason& why) __attribute__((always_inline)) {
    WarpState& w = warps_[slot];
    if (w.next_issue >= w.next_fetch || w.fetch_ready > now) {
      why = StallReason::kFetch;
    } else if (w.at_barrier) {
      why = StallReason::kBarrier;
    } else if (w.scoreboard_blocked) {
      // Same outcome as ready_to_issue without re-reading the instruction.
      why = StallReason::kScoreboard;
    } else {
      // The checks that read only the static instruction (hot, shared by the
      // warps), then the resources; the dynamic record is read once it issues.
      const TimedInstruction& ti = (*program_)[w.next.static_id];
      if (!ready_to_issue(w, ti, why)) {
        candidates_.update(slot, w);  // scoreboard_blocked may have been set
        return false;
      }
      if (w.next_resource & (blocked | units_used | ldst_refuses)) {
        // This sub-core used the resource or was refused it this cycle, or the LD/ST unit refuses.
        why = w.next_resource == kIssueMemory ? StallReason::kMemory : StallReason::kUnitBusy;
        blocked |= w.next_resource;
        return false;
      }
      return try_issue(w, ti, slot, now, units_used, blocked, why);
    }
    return false;
  };
  // After the first warp only an issue matters, and a warp that is no issue
  // candidate (IssueCandidates) or needs a resource this sub-core used or was
  // refused this cycle, or the LD/ST unit while it refuses, would fail without
  // a side effect: such warps are skipped unvisited.
  auto excluded = [&] { return blocked | units_used | ldst_refuses; };
  StallReason why = StallReason::kIdle;
  [&] {
    if (order.head.empty() && order.tail.empty()) return;
    const uint32_t first = order.head.empty() ? order.tail[0] : order.head[0];
    if (offer(first, why)) {
      if (++issued >= spec_.issue_width) return;
    } else {
      first_reason = why;
      // Whether the first warp's stall can end with time alone: a unit's
      // pipeline, or an instruction fetched but not decoded yet.
      const WarpState& w = warps_[first];
      first_timed = why == StallReason::kUnitBusy || (why == StallReason::kFetch && w.next_issue < w.next_fetch);
    }
    if (order.slot_rotation && candidates_.single_word()) {
      // The rest of the order is the sub-core's indices after the first's,
      // then those before it: the candidate bits rotated right past the first.
      const uint32_t first_index = layout_.index(first), shift = (first_index + 1) % 64;
      const uint64_t others = ~(uint64_t(1) << first_index);
      uint32_t excl = excluded();
      uint64_t remaining = ~uint64_t(0);  // rotated positions not visited yet
      uint64_t bits = std::rotr(candidates_.eligible_word(sc, 0, excl) & others, int(shift));
      while (bits != 0) {
        const uint32_t k = uint32_t(std::countr_zero(bits));
        if (offer(layout_.slot(sc, (k + shift) % 64), why) && ++issued >= spec_.issue_width) return;
        remaining = ~((uint64_t(2) << k) - 1);  // (k = 63: 2 << 63 wraps to 0, leaving none)
        if (excluded() != excl) {
          excl = excluded();
          bits = std::rotr(candidates_.eligible_word(sc, 0, excl) & others, int(shift)) & remaining;
        } else {
          bits &= remaining;
        }
      }
      return;
    }
    bool skip_first = true;
    for (std::span<const uint32_t> part : {order.head, order.tail})
      for (uint32_t slot : part) {
        if (skip_first) {
          skip_first = false;
          continue;
        }
        if (!candidates_.eligible(slot, excluded())) continue;
        if (offer(slot, why) && ++issued >= spec_.issue_width) return;
      }
  }();
  issuing_ = false;
  for (uint32_t slot : finished_in_issue_) base_of(schedulers_[sc]).remove_warp(slot);
  finished_in_issue_.clear();
  if (issued == 0) ++stats_.stalls[size_t(first_reason)];
  last_stall_[sc] = first_reason;
  stall_repeats_[sc] = issued == 0 && !first_timed;
}

bool Sm::tick(uint64_t now) {
  // A sleeping SM (gating, below) with no block offered, no work at its
  // memory port and no barrier to open: the same as the full tick's repeat,
  // without entering it.
  if (now < sleep_until_ && !has_offered_block() && busy() && !ldst_.port_has_work() && !slots_.barriers_opened() &&
      ldst_.port_accepts() == port_accepted_when_slept_) {
    count_repeated_cycles(1);
    return true;
  }
  return evaluate_tick(now);
}

bool Sm::evaluate_tick(uint64_t now) {
  accept_offered_block();
  if (!busy()) return false;
  ++stats_.cycles_active;
  stats_.warps_active_sum += slots_.resident_warps();
  if (ldst_.port_has_work()) {
    ldst_.cycle(now);
    sleep_until_ = std::min(sleep_until_, writebacks_.next_cycle());  // completions are new timed events
  }
  // (Before sleep_until_ nothing is due: see the gating fields.)
  const bool wrote_back = now >= sleep_until_ && writebacks_.due(now);
  if (wrote_back) writeback(now);
  release_barriers();
  const bool port_accepts = ldst_.port_accepts();
  if (!wrote_back && now < sleep_until_ && port_accepts == port_accepted_when_slept_) {
    // Issue and fetch would repeat the last evaluated cycle exactly: repeat its stalls.
    ++repeated_cycles_;
    return true;
  }
  count_repeated_stalls();  // before issue changes last_stall_
  const uint64_t issued_before = stats_.warp_insts, fetches_before = fetch_.attempts();
  // Sub-cores share the LD/ST unit; the one that tries first rotates every
  // cycle (fair memory issue, papers/volta-memory-system.txt Table II).
  for (uint32_t i = 0, sc = uint32_t(now % spec_.subcores); i < spec_.subcores;
       ++i, sc = sc + 1 == spec_.subcores ? 0 : sc + 1) {
    // Sub-cores whose issue would find what their last one found (only
    // with gating: with sm.gating=false every cycle is evaluated, which the
    // tests compare against). One without candidates whose warps did not
    // change since its last issue: the same first warp stalls for the same
    // reason.
    if (spec_.gating && candidates_.unchanged_without_candidates(sc)) {
      ++stats_.stalls[size_t(last_stall_[sc])];
      continue;
    }
    // The same when nothing issued in its last issue, its first warp's
    // stall then could not end with time alone (stall_repeats_), each
    // candidate needs the LD/ST unit and that still refuses: the first warp
    // stalls as it did (its state and the unit's refusal are the same) and
    // every other candidate is excluded.
    if (spec_.gating && stall_repeats_[sc] && candidates_.unchanged_all_needing(sc, kIssueMemory) &&
        !ldst_.can_issue(now)) {
      ++stats_.stalls[size_t(last_stall_[sc])];
      continue;
    }
    issue(sc, now);
  }
  for (uint32_t sc = 0; sc < spec_.subcores; ++sc) {
    fetch_.fetch(sc, now, warps_, *program_);
    for (uint32_t slot : fetch_.filled()) candidates_.update(slot, warps_[slot]);
  }
  const bool changed =
      stats_.warp_insts != issued_before || fetch_.attempts() != fetches_before || slots_.barriers_opened();
  sleep_until_ = changed || !spec_.gating ? 0 : next_timed_event(now);
  port_accepted_when_slept_ = ldst_.port_accepts();
  return true;
}

uint64_t Sm::quiet_until(uint64_t now) const {
  if (!busy()) return UINT64_MAX;
  // The conditions under which tick() repeats the last evaluated cycle.
  if (sleep_until_ <= now + 1 || slots_.barriers_opened()) return now + 1;
  if (ldst_.port_has_work() || ldst_.port_accepts() != port_accepted_when_slept_) return now + 1;
  const uint64_t until = std::min(sleep_until_, writebacks_.next_cycle());
  return std::max(until, now + 1);
}

void Sm::skip_quiet_cycles(uint64_t cycles) {
  if (busy()) count_repeated_cycles(cycles);
}

uint64_t Sm::next_timed_event(uint64_t now) const {
  uint64_t next = writebacks_.next_cycle();
  auto later = [&](uint64_t t) {
    if (t > now && t < next) next = t;
  };
  // Only a fetch can end a wait for the instruction cache; fetch_ready is
  // no event: a cycle that computes its sleep fetched nothing, so every
  // warp's fetch_ready (the cycle after its last fetch) is <= now.
  later(fetch_.next_unblock(now, warps_));
  later(units_.next_free_after(now));
  later(collectors_.next_free_after(now));
  later(ldst_.free_at());
  return next;
}

void Sm::count_repeated_stalls() {
  if (repeated_cycles_ == 0) return;
  for (uint32_t sc = 0; sc < spec_.subcores; ++sc) stats_.stalls[size_t(last_stall_[sc])] += repeated_cycles_;
  repeated_cycles_ = 0;
}

SmStats Sm::take_stats() {
  count_repeated_stalls();
  SmStats s = std::move(stats_);
  stats_ = SmStats();
  stats_.unit_issues.assign(spec_.units.size(), 0);
  s.l1 = ldst_.take_port_stats();
  return s;
}

std::vector<std::string> Sm::describe_stuck_warps() const {
  std::vector<std::string> out;
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
    const WarpState& w = warps_[slot];
    if (!w.active) continue;
    const BlockTrace* block = slots_.trace(w.block);
    char line[256];
    const char* state = w.at_barrier ? "at barrier" : w.waiting_membar ? "at MEMBAR" : w.outstanding ? "waiting for results" : "ready";
    std::snprintf(line, sizeof line, "sm %u block %s warp %u: instruction %u of %zu, %s, %u results outstanding", id_,
                  block ? block->id.str().c_str() : "?", w.trace->warp_id, w.trace_base + w.next_issue,
                  size_t(w.trace_base) + w.trace->insts.size(), state,
                  w.outstanding);
    out.emplace_back(line);
  }
  return out;
}

}  // namespace lockstep
