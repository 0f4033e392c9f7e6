#include "core/sm/ldst_unit.h"

#include <algorithm>
#include <bit>

#include "core/coalescer.h"
#include "core/shared_memory_banks.h"

namespace lockstep {

LdstUnit::LdstUnit(const SmSpec& spec, SmStats& stats, WritebackQueue& writebacks)
    : spec_(spec),
      stats_(stats),
      writebacks_(writebacks),
      port_(std::in_place_type<FixedLatencyPort>, spec.perfect_memory_latency),
      shared_banks_(spec.shared_banks, spec.shared_bank_bytes) {
  coalesced_.reserve(128);
}

void LdstUnit::attach(SmMemoryPort port) {
  // (Out of line: inlined into a caller that built the port from an
  // L1DataCache, GCC 12 warned of the other alternative as uninitialised.)
  std::visit([&](auto& p) { port_.emplace<std::decay_t<decltype(p)>>(std::move(p)); }, port);
  l1_ = std::get_if<L1DataCache>(&port_);
}

void LdstUnit::issue(WarpState& w, uint32_t slot, const TimedInstruction& ti, const WarpInstruction& wi,
                     uint64_t now) {
  ++stats_.mem_insts;
  ++issued_this_cycle_;
  // The result is pending until written back; an LDGSTS copy joins its warp's open group.
  w.scoreboard.reserve(ti);
  ++w.outstanding;
  ++w.outstanding_memory;
  const uint32_t group = ti.space == MemSpace::kGlobalToShared ? w.join_copy_group() : kNoCopyGroup;
  uint32_t busy = 1;
  uint64_t done = now + spec_.perfect_memory_latency;
  switch (ti.space) {
    case MemSpace::kShared: {
      ++stats_.shared_requests;
      // (Constant loads and the like come without addresses in traces.)
      LaneBuffer scratch;
      const std::span<const uint64_t> lanes =
          ti.has_addresses ? w.trace->lane_addresses(wi, scratch) : std::span<const uint64_t>();
      const uint32_t waves = shared_banks_.wavefronts(&ti, lanes, ti.access_bytes);
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
      coalesce_instruction(*w.trace, wi, ti.has_addresses, ti.access_bytes, spec_.coalesce_threads, coalesced_);
      const uint32_t sectors = uint32_t(coalesced_.size());
      const SmAccessOp op = access_op(ti.op);
      stats_.count_sector_request(ti.space, op, sectors);
      if (sectors == 0) break;  // no lane active: completes after the fixed latency
      const uint32_t token = free_tokens_.empty() ? uint32_t(inflight_.size()) : free_tokens_.back();
      const SmMemoryAccess access{token, op, ti.space, coalesced_, now};
      done = std::visit([&](auto& p) { return p.access(access); }, port_);
      if (done != kCompletesLater) break;
      // The port reports the accesses' completions later: the instruction holds the token until then.
      if (free_tokens_.empty()) {
        inflight_.emplace_back();
      } else {
        free_tokens_.pop_back();
      }
      inflight_[token] = InflightAccess{slot, &ti, group, sectors, now + 1};
      return;
    }
  }
  free_at_ = now + busy;
  writebacks_.push(done, slot, &ti, true, group);
}

void LdstUnit::access_done(uint32_t token, uint64_t cycle) {
  InflightAccess& a = inflight_[token];
  a.ready = std::max(a.ready, cycle);
  if (--a.remaining > 0) return;
  writebacks_.push(a.ready, a.warp, a.inst, true, a.copy_group);
  free_tokens_.push_back(token);
}

}  // namespace lockstep
