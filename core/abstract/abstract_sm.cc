#include "core/abstract/abstract_sm.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <stdexcept>
#include <string>

namespace lockstep {

AbstractSm::AbstractSm(const AbstractKernel& kernel)
    : k_(kernel),
      spec_(*kernel.sm),
      slots_(spec_),
      warps_(spec_.max_warps),
      view_(spec_.max_warps),
      resources_(spec_),
      layout_(spec_.max_warps, spec_.subcores),
      subcores_(spec_.subcores),
      ready_(spec_.subcores, 1 + uint32_t(spec_.units.size())),
      warm_from_(kernel.blocks->blocks().size(), UINT64_MAX),
      subcore_ready_(spec_.subcores, UINT64_MAX),
      waiting_(spec_.subcores),
      block_of_slot_(spec_.max_blocks, 0) {
  if (spec_.max_warps > 64 * spec_.subcores)
    throw std::invalid_argument("abstract model: more than 64 warps per sub-core (sm.max_warps / sm.subcores)");
  for (uint32_t sc = 0; sc < spec_.subcores; ++sc) schedulers_.push_back(make_warp_scheduler(spec_, sc));
  for (AnyWarpScheduler& s : schedulers_) scheduler_base_.push_back(&base_of(s));
  if (std::holds_alternative<LrrScheduler>(schedulers_.front())) policy_ = Policy::kLrr;
  else if (std::holds_alternative<GtoScheduler>(schedulers_.front())) policy_ = Policy::kGto;
  else if (spec_.scheduler == WarpSchedulerPolicy::kTwoLevel) policy_ = Policy::kTwoLevel;
  finishing_.reserve(spec_.max_warps);
  finished_in_issue_.reserve(spec_.max_warps);
  stats_.unit_issues.assign(spec_.units.size(), 0);
}

bool AbstractSm::enter_next_block(Warp& w, uint64_t now) {
  if (w.path == w.path_end) return false;
  const uint32_t b = work_->path[w.path++];
  const BasicBlock& bb = k_.blocks->blocks()[b];
  w.inst = bb.begin;
  w.inst_end = bb.begin + bb.size;
  uint64_t& warm_from = warm_from_[b];
  if (warm_from == UINT64_MAX) {
    warm_from = now + k_.timing->cold_extra[b];
    w.cold = true;
  } else {
    w.cold = now < warm_from;
  }
  return true;
}

void AbstractSm::wake(uint32_t slot, uint32_t sc, uint32_t index, uint64_t now) {
  const uint64_t ready_at = warps_[slot].ready_at;
  ready_.remove(sc, index);
  waiting_[sc].add(index, ready_at, now);
  subcore_ready_[sc] = std::min(subcore_ready_[sc], ready_at);
}

void AbstractSm::requeue(uint32_t slot, uint32_t sc, uint32_t index, uint64_t now, bool issued) {
  const Warp& w = warps_[slot];
  if (w.issuing) ready_.set_resource(sc, index, resource_of(k_.timing->insts[w.inst]));
  if (!w.issuing || w.at_barrier) {
    ready_.remove(sc, index);
    return;
  }
  // A warp that issued and may issue again next cycle stays ready instead of
  // waiting one cycle in the calendar: the sub-core looks again next cycle
  // (it issued), and with one issue a cycle nothing offers it again before.
  const bool again_next_cycle = issued && w.ready_at == now + 1 && spec_.issue_width == 1;
  if (w.ready_at > now && !again_next_cycle) wake(slot, sc, index, now);
}

void AbstractSm::accept_block(const SmWorkload& work, uint32_t index, uint64_t now) {
  const EncodedBlock& eb = work.blocks[index];
  slots_.take_spent_blocks(spare_);
  std::unique_ptr<BlockTrace> placeholder;
  if (!spare_.empty()) {
    placeholder = std::move(spare_.back());
    spare_.pop_back();
  } else {
    placeholder = std::make_unique<BlockTrace>();
  }
  placeholder->warps.resize(eb.warp_end - eb.warp_begin);
  const uint32_t block = slots_.accept(k_.launch, std::move(placeholder));
  block_of_slot_[block] = index;
  ++stats_.blocks_launched;
  const std::span<const uint32_t> slots = slots_.warp_slots(block);
  uint32_t empty = 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    const uint32_t slot = slots[i];
    const EncodedWarp& ew = work.warps[eb.warp_begin + i];
    Warp& w = warps_[slot];
    w = Warp();
    w.block = block;
    w.path = ew.path_begin;
    w.path_end = ew.path_end;
    w.memory = ew.memory_begin;
    stats_.thread_insts += ew.thread_insts;
    WarpState& v = view_[slot];
    v = WarpState();
    v.age = launch_seq_++;
    base_of(schedulers_[layout_.subcore(slot)]).add_warp(slot);
    if (enter_next_block(w, now)) {
      w.issuing = true;
      ready_.set_resource(layout_.subcore(slot), layout_.index(slot), resource_of(k_.timing->insts[w.inst]));
      w.ready_at = now + (w.cold ? k_.timing->startup_cold : k_.timing->startup_warm);
      wake(slot, layout_.subcore(slot), layout_.index(slot), now);
    } else {
      ++empty;
    }
  }
  // Warps with an empty trace finish at once.
  for (uint32_t i = 0; empty > 0 && i < eb.warp_end - eb.warp_begin; ++i) {
    const uint32_t slot = slots_.warp_slots(block)[i];
    if (!warps_[slot].issuing) {
      --empty;
      finish_warp(slot, now);
    }
  }
}

void AbstractSm::finish_warp(uint32_t slot, uint64_t now) {
  Warp& w = warps_[slot];
  if (in_issue_) finished_in_issue_.push_back(slot);
  else base_of(schedulers_[layout_.subcore(slot)]).remove_warp(slot);
  slots_.finish_warp(w.block, slot);
  if (slots_.take_retired_blocks() > 0) {
    last_retire_ = std::max(last_retire_, now);
    retired_any_ = true;
    dispatch_at_ = std::max(dispatch_at_, now + 1);
  }
}

void AbstractSm::release_waiting_warps(uint64_t now) {
  slots_.release_barriers([&](uint32_t slot) {
    Warp& w = warps_[slot];
    if (!w.at_barrier) return;
    w.at_barrier = false;
    --warps_at_barrier_;
    w.ready_at = std::max(w.ready_at, now + w.barrier_delay);
    wake(slot, layout_.subcore(slot), layout_.index(slot), now);
  });
}

uint64_t AbstractSm::results_ready(Warp& w, const CharacterisedInstruction& ci, uint64_t now) {
  const TimedInstruction& reader = (*k_.program)[ci.static_id];
  prune_results(w, now);
  uint64_t ready = 0;
  for (uint32_t i = 0; i < w.pending; ++i) {
    const PendingResult& p = w.results[i];
    const TimedInstruction& writer = (*k_.program)[p.static_id];
    bool reads = false;
    for (uint32_t d = 0; d < writer.num_dsts && !reads; ++d) {
      for (uint32_t s = 0; s < reader.num_srcs; ++s) reads |= reader.srcs[s] == writer.dsts[d];
      for (uint32_t s = 0; s < reader.num_dsts; ++s) reads |= reader.dsts[s] == writer.dsts[d];
    }
    if (reads) ready = std::max(ready, p.done);
  }
  return ready;
}

void AbstractSm::prune_results(Warp& w, uint64_t now) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < w.pending; ++i)
    if (w.results[i].done > now) w.results[kept++] = w.results[i];
  w.pending = kept;
}

uint64_t AbstractSm::bandwidth(uint64_t& free, uint32_t sectors, uint32_t cost, uint64_t now) const {
  free = std::max(free, now * 256) + uint64_t(sectors) * cost;
  return (free + 255) / 256;
}

bool AbstractSm::try_issue(Warp& w, uint32_t slot, uint32_t sc, uint64_t now, uint32_t& units_used) {
  const CharacterisedInstruction& ci = k_.timing->insts[w.inst];
  // A result from memory that comes later than in the characterisation holds its first reader back.
  if (ci.reads_memory_result && w.pending > 0) {
    const uint64_t ready = results_ready(w, ci, now);
    if (ready > now) {
      w.ready_at = ready;
      return false;
    }
  }
  if (ci.kind == InstKind::kMemBarrier && w.memory_done > now) {
    w.ready_at = w.memory_done;
    return false;
  }
  if (ci.kind == InstKind::kDepBar) {
    const TimedInstruction& ti = (*k_.program)[ci.static_id];
    const uint32_t allowed = ti.immediate > 0 ? uint32_t(ti.immediate) : 0;
    uint64_t ready = 0;
    for (uint32_t back = allowed + 1; back <= std::min(w.groups_closed, kCopyGroups); ++back)
      ready = std::max(ready, w.group_done[(w.groups_closed - back) % kCopyGroups]);
    if (ready > now) {
      w.ready_at = ready;
      return false;
    }
  }
  uint32_t bank_extra = 0;
  if (ci.memory) {
    if (ldst_cycle_ != now) {
      ldst_cycle_ = now;
      ldst_issued_ = 0;
    }
    units_used |= 1u;
  } else if (ci.unit != kNoUnit) {
    bank_extra = ci.bank_conflicts;
    resources_.issue(sc, ci.unit, now, bank_extra);
    units_used |= 2u << ci.unit;
    ++stats_.unit_issues[ci.unit];
  }

  // Issue.
  const uint16_t delay = w.cold ? ci.cold_delay : ci.delay;
  ++stats_.warp_insts;
  scheduler_base_[sc]->issued(slot);
  uint64_t result = 0;
  if (ci.memory) {
    const MemoryCost& mc = (*k_.costs)[work_->memory[w.memory++]];
    ++stats_.mem_insts;
    ++ldst_issued_;
    ldst_free_ = now + mc.busy;
    uint64_t done = now + mc.latency;
    if (mc.l2_sectors && k_.latencies.l2_sector_cost)
      done = std::max(done, bandwidth(l2_free_, mc.l2_sectors, k_.latencies.l2_sector_cost, now) + k_.latencies.l1_hit);
    if (mc.dram_sectors && k_.latencies.dram_sector_cost)
      done = std::max(done, bandwidth(dram_free_, mc.dram_sectors, k_.latencies.dram_sector_cost, now) + k_.latencies.l2_hit);
    if (mc.l2_sectors && k_.latencies.port_sector_cost) {
      // Beyond the L1's miss queue the LD/ST unit waits for the port to send the requests.
      bandwidth(port_free_, mc.l2_sectors, k_.latencies.port_sector_cost, now);
      const uint64_t held = uint64_t(k_.latencies.miss_queue) * k_.latencies.port_sector_cost;
      if (port_free_ > now * 256 + held) ldst_free_ = std::max(ldst_free_, (port_free_ - held + 255) / 256);
      // Their replies (data or acknowledgements) enter the L1 one a cycle.
      reply_free_ = std::max(reply_free_ + uint64_t(mc.l2_sectors) * k_.latencies.port_sector_cost, done * 256);
      done = (reply_free_ + 255) / 256;
    }
    // Write-backs of the lines it evicted take DRAM time after it; nothing waits for them.
    if (mc.dram_writebacks && k_.latencies.dram_sector_cost)
      bandwidth(dram_free_, mc.dram_writebacks, k_.latencies.dram_sector_cost, now);
    w.memory_done = std::max(w.memory_done, done);
    view_[slot].outstanding_memory = 1;
    if (ci.async_copy) {
      uint64_t& group = w.group_done[w.groups_closed % kCopyGroups];
      group = std::max(group, done);
    }
    if (ci.num_dsts > 0) {
      result = done;
      if (done > now + ci.result_latency) {
        if (w.pending == kPendingResults) prune_results(w, now);
        if (w.pending == kPendingResults) {
          // No room to track it: the warp waits for the oldest.
          w.ready_at = std::max(w.ready_at, w.results[0].done);
          std::copy(w.results.begin() + 1, w.results.end(), w.results.begin());
          --w.pending;
        }
        w.results[w.pending++] = PendingResult{ci.static_id, done};
      }
    }
  } else if (ci.num_dsts > 0) {
    result = now + ci.result_latency + bank_extra;
  }
  w.last_result = std::max(w.last_result, result);
  w.ready_at = std::max(w.ready_at, now + delay);
  if (ci.kind == InstKind::kBarrier) {
    // After the barrier opens the warp waits the warm delay: its instruction
    // fetch went on while it waited.
    w.at_barrier = true;
    ++warps_at_barrier_;
    w.barrier_delay = ci.delay;
    slots_.arrive_at_barrier(w.block);
  } else if (ci.kind == InstKind::kLdgDepBar) {
    ++w.groups_closed;
    w.group_done[w.groups_closed % kCopyGroups] = 0;
  }
  if (++w.inst == w.inst_end && !enter_next_block(w, now)) {
    w.issuing = false;
    const uint64_t end = std::max(now, std::max(w.last_result, w.memory_done));
    if (end <= now) {
      finish_warp(slot, now);
    } else {
      finishing_.emplace_back(end, slot);
      finishing_first_ = std::min(finishing_first_, end);
    }
  }
  return true;
}

void AbstractSm::issue_subcore(uint32_t sc, uint64_t now) {
  if (subcore_ready_[sc] > now) return;
  ready_.add(sc, waiting_[sc].take_due(now));
  const uint64_t ready = ready_.of(sc);
  if (ready == 0) {
    subcore_ready_[sc] = waiting_[sc].earliest();
    return;
  }
  AnyWarpScheduler& scheduler = schedulers_[sc];
  uint32_t issued = 0, units_used = 0;
  // The resources refused this cycle: a refused one removes all its warps,
  // which would fail without a side effect that matters (a warp's dependence
  // wait, found later, gives it the same ready_at).
  uint32_t blocked = 0;
  in_issue_ = true;
  // Offers the issue slot to the ready warp of index `index`; true when the sub-core issues no more this cycle.
  auto offer = [&](uint32_t index) {
    const uint32_t slot = layout_.slot(sc, index);
    const uint32_t resource = ready_.resource(sc, index);
    if ((resource & units_used) || !resource_free(resource, sc, now)) {
      blocked |= resource;
      return false;
    }
    const bool issues = try_issue(warps_[slot], slot, sc, now, units_used);
    issued += issues;
    requeue(slot, sc, index, now, issues);
    return issued >= spec_.issue_width;
  };
  if (policy_ != Policy::kTwoLevel && (ready & (ready - 1)) == 0) {
    // One warp can issue: the policy's order does not matter.
    offer(uint32_t(std::countr_zero(ready)));
  } else if (policy_ == Policy::kGto) {
    GtoScheduler* gto = std::get_if<GtoScheduler>(&scheduler);
    // Greedy then oldest (GtoScheduler::order() without building the list).
    const uint32_t greedy = gto->last_issued();
    bool done = greedy != UINT32_MAX && layout_.subcore(greedy) == sc &&
                ready_.eligible(sc, layout_.index(greedy), 0) && offer(layout_.index(greedy));
    for (uint32_t slot : gto->by_age(view_)) {
      if (done) break;
      if (slot != greedy && ready_.eligible(sc, layout_.index(slot), blocked)) done = offer(layout_.index(slot));
    }
  } else if (policy_ == Policy::kLrr) {
    // Loose round robin (LrrScheduler::order()) over the ready warps only: from
    // the first slot after the last issued one, then wrapping round. Offering a
    // warp makes no other warp ready, so the warps left to offer are a snapshot
    // of the ready bits less those offered or refused their resource.
    const uint32_t last = scheduler_base_[sc]->last_issued();
    const uint32_t first_bit = last == UINT32_MAX || last < sc ? 0 : layout_.index(last) + 1;
    const uint64_t after = first_bit >= 64 ? 0 : ~uint64_t(0) << first_bit;
    uint64_t left = ready;
    while (left != 0) {
      const uint64_t later = left & after;
      const uint32_t index = uint32_t(std::countr_zero(later != 0 ? later : left));
      left &= ~(uint64_t(1) << index);
      const uint32_t blocked_before = blocked;
      if (offer(index)) break;
      if (blocked != blocked_before) left &= ready_.eligible(sc, blocked);
    }
  } else {
    if (policy_ == Policy::kTwoLevel)
      for (uint32_t slot : base_of(scheduler).resident()) view_[slot].outstanding_memory = warps_[slot].memory_done > now;
    const IssueOrder order = std::visit([&](auto& policy) { return policy.order(view_); }, scheduler);
    bool done = false;
    for (uint32_t slot : order.head)
      if (!done && ready_.eligible(sc, layout_.index(slot), blocked)) done = offer(layout_.index(slot));
    for (uint32_t slot : order.tail)
      if (!done && ready_.eligible(sc, layout_.index(slot), blocked)) done = offer(layout_.index(slot));
  }
  in_issue_ = false;
  for (uint32_t slot : finished_in_issue_) scheduler_base_[sc]->remove_warp(slot);
  finished_in_issue_.clear();
  // The sub-core's next chance: with no warp ready, the first waiting one's
  // cycle (a warp woken earlier lowers it). Warps still ready after an issue
  // (held back by the issue width or a resource) try again next cycle. With no
  // issue, every warp still ready was refused its resource: nothing changes
  // before one of those frees (an issue elsewhere can only hold the shared
  // LD/ST unit longer).
  uint64_t next = waiting_[sc].earliest();
  if (ready_.of(sc) != 0) {
    if (issued > 0) next = now + 1;
    for (uint32_t m = blocked; m != 0 && next > now + 1; m &= m - 1)
      next = std::min(next, resource_free_from(m & (~m + 1), sc, now));
  }
  subcore_ready_[sc] = next;
}

uint64_t AbstractSm::resource_free_from(uint32_t resource, uint32_t sc, uint64_t now) const {
  // (Looking no further than kLookAhead cycles on, as the sub-core's sleep always has.)
  constexpr uint64_t kLookAhead = 8;
  const uint64_t from = resource & 1u ? ldst_free_ : resources_.unit_free_from(sc, uint32_t(std::countr_zero(resource)) - 1);
  return std::min(std::max(from, now + 1), now + kLookAhead + 1);
}

AbstractSmResult AbstractSm::run(const SmWorkload& work) {
  advance(work, true);
  return result();
}

uint32_t AbstractSm::first_block_needed() const {
  // Resident blocks read their warps' paths and costs; the next ones are not taken yet.
  uint32_t first = next_block_;
  for (uint32_t b = 0; b < block_of_slot_.size(); ++b)
    if (slots_.trace(b)) first = std::min(first, block_of_slot_[b]);
  return first;
}

AbstractSmResult AbstractSm::result() {
  AbstractSmResult r;
  r.cycles = retired_any_ ? last_retire_ + 1 : 0;
  r.stats = std::move(stats_);
  return r;
}

bool AbstractSm::advance(const SmWorkload& work, bool all) {
  work_ = &work;
  const uint32_t blocks = uint32_t(work.blocks.size());
  uint32_t next_block = next_block_;
  uint64_t now = now_;
  for (;;) {
    // A cycle reads at most the next two blocks (one accepted, the next one's
    // dispatch slot): without them, it waits for more (at a cycle's start,
    // where nothing of it has happened yet).
    if (!all && next_block + 2 > blocks) {
      next_block_ = next_block;
      now_ = now;
      return false;
    }
    // Warps whose last results are written back this cycle finish.
    if (finishing_first_ <= now) {
      uint64_t first = UINT64_MAX;
      for (size_t i = 0; i < finishing_.size();) {
        if (finishing_[i].first > now) {
          first = std::min(first, finishing_[i].first);
          ++i;
          continue;
        }
        const uint32_t slot = finishing_[i].second;
        finishing_[i] = finishing_.back();
        finishing_.pop_back();
        finish_warp(slot, now);
      }
      finishing_first_ = first;
    }
    release_barriers(now);
    // A block when the launch costs and the occupancy limits allow.
    if (next_block < blocks && dispatch_slot(work, next_block, now) == now &&
        slots_.can_accept(slots_.residency(), k_.launch, spec_)) {
      accept_block(work, next_block++, now);
      dispatch_at_ = now + std::max(k_.sm_block_interval, 1u);
    }
    if (slots_.resident_blocks() == 0 && next_block == blocks) break;
    // From sub-core now % subcores round; only those that may issue now.
    const uint32_t subcores = spec_.subcores;
    for (uint32_t i = 0, sc = uint32_t(subcores_.mod(now)); i < subcores; ++i, sc = sc + 1 == subcores ? 0 : sc + 1)
      if (subcore_ready_[sc] <= now) issue_subcore(sc, now);
    release_barriers(now);
    if (slots_.resident_blocks() == 0 && next_block == blocks) break;  // the last warp finished in this issue
    // The next cycle in which anything can happen.
    uint64_t next = UINT64_MAX;
    for (uint64_t t : subcore_ready_) next = std::min(next, t);
    next = std::min(next, finishing_first_);
    if (next_block < blocks && slots_.can_accept(slots_.residency(), k_.launch, spec_))
      next = std::min(next, std::max(dispatch_slot(work, next_block, now), now + 1));
    next = std::max(next, now + 1);
    if (next == UINT64_MAX) throw std::runtime_error("abstract model: no warp of the SM can ever issue again (a barrier never opens)");
    if (slots_.resident_blocks() > 0) {
      stats_.cycles_active += next - now;
      stats_.warps_active_sum += (next - now) * slots_.resident_warps();
    }
    now = next;
  }
  next_block_ = next_block;
  now_ = now;
  return true;
}

}  // namespace lockstep
