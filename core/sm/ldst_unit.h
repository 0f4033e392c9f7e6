#pragma once
// The SM's LD/ST unit: accepts up to sm.ldst_issue_per_cycle memory
// instructions a cycle, shared by the sub-cores. Shared memory: served here,
// busy one cycle per bank wavefront, data after shared_latency plus the
// conflict cycles. Constant loads (no addresses in traces): after
// perfect_memory_latency. Global, local, texture and atomic accesses: the
// lanes' addresses are coalesced into sectors and handed to the memory port
// below (core/sm_memory_port.h). A port that knows the completion at issue
// (perfect memory) occupies the unit for a cycle; one that reports it later
// (the L1) paces issue by its queue: the instruction holds a token until all
// its sector accesses are done. LDGSTS copies count in their warp's open
// group until written back (LDGDEPBAR / DEPBAR, WarpState).
#include <cstdint>
#include <span>
#include <utility>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/kernel_program.h"
#include "core/shared_memory_banks.h"
#include "core/sm/scoreboard.h"
#include "core/sm/warp_state.h"
#include "core/sm/writeback_queue.h"
#include "core/sm_memory_port.h"
#include "configs/spec/sm_spec.h"
#include "core/sm_stats.h"

namespace lockstep {

class LdstUnit {
 public:
  LdstUnit(const SmSpec& spec, SmStats& stats, WritebackQueue& writebacks);

  // Replaces the memory port (the fixed-latency port until then).
  void attach(SmMemoryPort port);
  SmMemoryPort& port() { return port_; }

  void start_kernel(uint32_t l1_kb, uint8_t stat_slot) {
    std::visit([&](auto& p) { p.start_kernel(l1_kb, stat_slot); }, port_);
  }
  // Whether a memory instruction can issue at `now`: the unit is free, it
  // has accepted fewer than ldst_issue_per_cycle this cycle, and the port accepts.
  [[gnu::always_inline]] bool can_issue(uint64_t now) {
    if (issue_cycle_ != now) {
      issue_cycle_ = now;
      issued_this_cycle_ = 0;
    }
    return free_at_ <= now && issued_this_cycle_ < spec_.ldst_issue_per_cycle && port_accepts();
  }
  // Issues the memory instruction `ti` (dynamic record `wi`) of the warp in `slot`.
  void issue(WarpState& w, uint32_t slot, const TimedInstruction& ti, const WarpInstruction& wi, uint64_t now);

  // The port's cycle: completed instructions are queued for writeback.
  void cycle(uint64_t now) {
    std::visit([&](auto& p) { p.cycle(now, [this](uint32_t token, uint64_t cycle) { access_done(token, cycle); }); },
               port_);
  }
  // (Asked every cycle: through l1_, without reading the variant's index, which lies past the L1's state.)
  bool port_has_work() const { return l1_ ? l1_->has_work() : std::get<FixedLatencyPort>(port_).has_work(); }
  bool port_accepts() const { return l1_ ? l1_->can_accept() : std::get<FixedLatencyPort>(port_).can_accept(); }
  L1Stats take_port_stats() {
    return std::visit([](auto& p) { return p.take_stats(); }, port_);
  }
  // The cycle the unit accepts again after a shared-memory or fixed-latency access.
  uint64_t free_at() const { return free_at_; }

 private:
  // An instruction in the port, by token: completes when all its accesses have.
  struct InflightAccess {
    uint32_t warp = 0;
    const TimedInstruction* inst = nullptr;
    uint32_t copy_group = kNoCopyGroup;
    uint32_t remaining = 0;
    uint64_t ready = 0;
  };
  void access_done(uint32_t token, uint64_t cycle);

  L1DataCache* l1_ = nullptr;  // the port when it is the L1 (else null)
  const SmSpec& spec_;
  SmStats& stats_;
  WritebackQueue& writebacks_;
  SmMemoryPort port_;
  std::vector<InflightAccess> inflight_;
  std::vector<uint32_t> free_tokens_;
  std::vector<SectorAccess> coalesced_;  // scratch
  SharedMemoryBanks shared_banks_;
  uint64_t free_at_ = 0;
  uint32_t issued_this_cycle_ = 0;
  uint64_t issue_cycle_ = UINT64_MAX;
};

}  // namespace lockstep
