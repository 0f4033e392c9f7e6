#pragma once
// The GPU's pieces of a core cycle's work, as the cycle engine runs them
// (parallel/cycle_engine.h): a cluster of SMs, and a memory-side unit. And
// the per-SM view the cluster pieces leave for the dispatcher.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/sm_model.h"
#include "memsys/memory_model.h"
#include "memsys/staged_ports.h"
#include "parallel/cycle_engine.h"

namespace lockstep {

// Per SM, refreshed by the thread that ticked it at the end of its cluster's
// piece (each field written only when it changes): what the dispatcher needs
// of the SM between cycles, so that it never reads the SMs' own cache lines.
struct SmView {
  SmModel::Residency residency;
  uint32_t retired = 0;  // blocks retired in the cycle just run
};

// Ticks SMs [first, last) (a cluster; on one thread, every SM): each between
// its reply port's receive (only when something was staged into it, when the
// ports report their stages) and publish. It visits only the SMs that may
// have something to do: those that held a block after their last tick or
// retired one in it (their view's count goes back to 0 in the cycle after),
// those offered a block (the dispatcher marks them in `offers`, parity 0) and
// those whose reply port was staged into; any other SM holds no block and
// gets none, so its tick would return at once, it pops nothing and its view
// stands. (Without stage reports every SM is visited every cycle.)
class alignas(64) SmClusterPiece final : public EnginePiece {
 public:
  SmClusterPiece(std::vector<std::unique_ptr<SmModel>>& sms, uint32_t first, uint32_t last, MemoryModel& memory,
                 std::vector<SmView>& views, StagedPorts& offers, bool unlatched_coupling_for_tests)
      : sms_(sms),
        first_(first),
        last_(last),
        reply_stages_(memory.sm_reply_stages()),
        offers_(offers),
        views_(views),
        unlatched_coupling_(unlatched_coupling_for_tests) {
    for (uint32_t s = first; s < last; ++s) reply_ports_.push_back(memory.sm_reply_port(s));
    visit_.resize(((last - 1) / 64 - first / 64) / VisitWords::kWords + 1);
    for (uint32_t w = first / 64; w <= (last - 1) / 64; ++w) visit_word(w - first / 64) = word_mask(w);
  }

  void run(uint64_t now) override;
  // The earliest SmModel::quiet_until of its SMs (now + 1 as soon as one says so).
  uint64_t quiet_until(uint64_t now) const override;
  // Between cycles (the leader): whether a view of its SMs changed or one of
  // them retired a block since the last call (else the dispatcher need not
  // read its views again: nothing retired and no SM has more room than before).
  // (Written only when set: the piece's line stays in the cache of the
  // thread that runs it, shared with the leader's, in a cycle without news.)
  bool take_views_changed() {
    if (!views_changed_) return false;
    views_changed_ = false;
    return true;
  }

 private:
  // The bits of SMs [first_, last_) in word w (SM s is bit s % 64 of word s / 64).
  uint64_t word_mask(uint32_t w) const {
    const uint32_t lo = std::max(first_, w * 64), hi = std::min(last_, w * 64 + 64);
    return (hi - lo == 64 ? ~uint64_t(0) : ((uint64_t(1) << (hi - lo)) - 1)) << (lo % 64);
  }
  // Ticks SM s (receiving its replies first when `staged`); whether it must
  // be visited in the next cycle.
  [[gnu::always_inline]] bool run_sm(uint32_t s, uint64_t now, bool staged);

  std::vector<std::unique_ptr<SmModel>>& sms_;
  const uint32_t first_, last_;
  std::vector<LatchedQueue<MemPacket>*> reply_ports_;  // of SMs first_ .. last_ - 1 (null: none)
  // Which reply ports had something staged (null: receive on each every cycle).
  StagedPorts* reply_stages_;
  StagedPorts& offers_;  // SMs offered a block for this cycle (parity 0)
  // SMs to visit in the next cycle, per word from first_ / 64; written every
  // cycle by the thread that runs the piece, so on cache lines of their own.
  struct alignas(64) VisitWords {
    static constexpr uint32_t kWords = 8;
    uint64_t words[kWords] = {};
  };
  std::vector<VisitWords> visit_;
  uint64_t& visit_word(uint32_t k) { return visit_[k / VisitWords::kWords].words[k % VisitWords::kWords]; }
  uint64_t visit_word(uint32_t k) const { return visit_[k / VisitWords::kWords].words[k % VisitWords::kWords]; }
  std::vector<SmView>& views_;
  const bool unlatched_coupling_;  // TestSwitches::unlatched_coupling
  bool views_changed_ = false;
  mutable uint32_t awake_hint_ = first_;  // quiet_until(): the SM asked first
};

// Memory-side units [first, last): each one's work on this core cycle's
// memory-side edges, in unit order.
class MemoryUnitPiece final : public EnginePiece {
 public:
  MemoryUnitPiece(MemoryModel& memory, uint32_t first, uint32_t last, const std::vector<MemoryEdge>& edges)
      : memory_(memory), first_(first), last_(last), edges_(edges) {}
  void run(uint64_t) override {
    memory_.run_units(first_, last_, edges_.data(), edges_.size());
  }
  // A unit on its own never holds a jump back: the GPU asks the whole memory
  // side between cycles (MemoryModel::idle, next_event_when_idle).
  uint64_t quiet_until(uint64_t) const override { return UINT64_MAX; }

 private:
  MemoryModel& memory_;
  const uint32_t first_, last_;
  const std::vector<MemoryEdge>& edges_;
};

}  // namespace lockstep
