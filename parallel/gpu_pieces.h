#pragma once
// The GPU's pieces of a core cycle's work, as the cycle engine runs them
// (parallel/cycle_engine.h): a cluster of SMs, and a memory-side unit. And
// the per-SM view the cluster pieces leave for the dispatcher.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/sm_model.h"
#include "memsys/memory_model.h"
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
// ports report their stages) and publish. An SM that holds no block and is
// offered none is not ticked (its tick would return at once).
class alignas(64) SmClusterPiece final : public EnginePiece {
 public:
  SmClusterPiece(std::vector<std::unique_ptr<SmModel>>& sms, uint32_t first, uint32_t last, MemoryModel& memory,
                 std::vector<SmView>& views, bool unlatched_coupling_for_tests)
      : sms_(sms),
        first_(first),
        last_(last),
        reply_stages_(memory.sm_reply_stages()),
        views_(views),
        unlatched_coupling_(unlatched_coupling_for_tests) {
    for (uint32_t s = first; s < last; ++s) reply_ports_.push_back(memory.sm_reply_port(s));
  }

  void run(uint64_t now) override;
  // The earliest SmModel::quiet_until of its SMs (now + 1 as soon as one says so).
  uint64_t quiet_until(uint64_t now) const override;
  // Between cycles (the leader): whether a view of its SMs changed or one of
  // them retired a block since the last call (else the dispatcher need not
  // read its views again: nothing retired and no SM has more room than before).
  bool take_views_changed() {
    const bool changed = views_changed_;
    views_changed_ = false;
    return changed;
  }

 private:
  std::vector<std::unique_ptr<SmModel>>& sms_;
  const uint32_t first_, last_;
  std::vector<LatchedQueue<MemPacket>*> reply_ports_;  // of SMs first_ .. last_ - 1 (null: none)
  // Which reply ports had something staged (null: receive on each every cycle).
  StagedPorts* reply_stages_;
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
    for (uint32_t u = first_; u < last_; ++u) memory_.run_unit(u, edges_.data(), edges_.size());
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
