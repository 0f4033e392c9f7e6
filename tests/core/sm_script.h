#pragma once
// Scripted warps for SM rule tests: a test SmSpec, a kernel's static
// instructions built by hand, and a runner that ticks one SM (optionally with
// an L1 data cache whose ports a fixed-latency responder serves) until it is idle.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "core/kernel_program.h"
#include "core/occupancy.h"
#include "core/sm.h"
#include "memsys/latched_queue.h"
#include "memsys/mem_packet.h"

namespace lockstep::test {

constexpr uint32_t kSpLatency = 4;
constexpr uint32_t kSpInitiation = 2;
constexpr uint32_t kSfuLatency = 20;
constexpr uint32_t kIcacheMiss = 10;

inline SmSpec test_spec() {
  SmSpec s;
  s.subcores = 4;
  s.max_warps = 64;
  s.max_threads = 2048;
  s.max_blocks = 32;
  s.ibuffer_entries = 8;
  s.reg_banks = 2;
  s.icache_miss_latency = kIcacheMiss;
  s.units = {{"SP", 1, kSpLatency, kSpInitiation}, {"INT", 1, 4, 1}, {"SFU", 1, kSfuLatency, 8}, {"BRANCH", 1, 4, 1}};
  return s;
}

// Builds a kernel's static instructions and per-warp instruction lists.
class Script {
 public:
  explicit Script(const SmSpec& spec)
      : spec_(spec),
        program_(spec_,
                 [](const std::string& op, const std::string& where) -> std::pair<std::string, InstKind> {
                   const std::string base = op.substr(0, op.find('.'));
                   if (base == "FFMA" || base == "FADD") return {"SP", InstKind::kAlu};
                   if (base == "IADD3") return {"INT", InstKind::kAlu};
                   if (base == "MUFU") return {"SFU", InstKind::kAlu};
                   if (base == "BAR") return {"BRANCH", InstKind::kBarrier};
                   if (base == "EXIT") return {"BRANCH", InstKind::kExit};
                   if (base == "BRA") return {"BRANCH", InstKind::kBranch};
                   if (base == "LDS" || base == "STS" || base == "LDGSTS" || base == "LDG" || base == "STG" ||
                       base == "ATOMG" || base == "RED")
                     return {"MEM", InstKind::kMemory};
                   if (base == "LDGDEPBAR") return {"MEM", InstKind::kLdgDepBar};
                   if (base == "DEPBAR") return {"MEM", InstKind::kDepBar};
                   throw std::runtime_error(where + ": unknown " + op);
                 },
                 "test kernel") {}

  // dst/src are R register numbers; pc advances by 16 per static instruction.
  uint32_t inst(const std::string& opcode, std::vector<uint16_t> dsts, std::vector<uint16_t> srcs, uint32_t width = 0,
                std::optional<int64_t> immediate = std::nullopt) {
    StaticInstruction st;
    st.has_immediate = immediate.has_value();
    st.immediate = immediate.value_or(0);
    st.pc = 16 * table_.size();
    st.opcode_id = table_.intern_opcode(opcode);
    for (uint16_t d : dsts) st.dsts.push_back(RegRef{RegKind::kR, d});
    for (uint16_t s : srcs) st.srcs.push_back(RegRef{RegKind::kR, s});
    st.mem_width = width;
    return table_.intern(st);
  }
  void add(BlockTrace& block, uint32_t warp, uint32_t static_id, std::vector<uint64_t> addrs = {}) {
    while (block.warps.size() <= warp) {
      block.warps.emplace_back();
      block.warps.back().warp_id = uint32_t(block.warps.size() - 1);
    }
    WarpTrace& w = block.warps[warp];
    const uint32_t mask = addrs.empty() || addrs.size() == 32 ? 0xffffffffu : (1u << addrs.size()) - 1;
    if (addrs.empty()) {
      w.push(static_id, mask);
    } else {
      w.push(static_id, mask, addrs);
    }
  }

  // The kernel's program with every instruction added so far resolved (for models that run it themselves).
  KernelProgram& program() {
    program_.extend(table_);
    return program_;
  }
  const StaticTable& table() const { return table_; }

  struct Issue {
    uint64_t cycle;
    uint32_t warp;
    uint32_t index;
  };
  // Runs one block on a fresh SM; returns total cycles and records every issue.
  uint64_t run(const BlockTrace& block, std::vector<Issue>* issues = nullptr) {
    program_.extend(table_);
    Sm sm(0, spec_);
    if (issues)
      sm.set_issue_observer([issues](uint64_t c, uint32_t w, const Dim3&, uint32_t i) { issues->push_back({c, w, i}); });
    KernelLaunch l;
    l.program = &program_;
    l.warps_per_block = uint32_t(block.warps.size());
    l.occupancy = compute_occupancy(spec_, KernelShape{32 * l.warps_per_block, 32, 0});
    sm.accept(l, std::make_unique<BlockTrace>(block), 0);
    uint64_t now = 0;
    while (sm.tick(now)) ++now;
    stats_ = sm.take_stats();
    return now;
  }
  const SmStats& stats() const { return stats_; }

  // How the dispatcher hands blocks over: Sm::accept between cycles, or
  // Sm::offer (accepted at the start of the SM's tick of the same cycle).
  enum class Handover { kAccept, kOffer };
  // Runs `first` from cycle 0 and `second` dispatched at cycle `second_at`
  // (before that cycle's tick) on a fresh SM; returns total cycles and
  // records every issue.
  uint64_t run_two(const BlockTrace& first, const BlockTrace& second, uint64_t second_at, Handover how,
                   std::vector<Issue>* issues) {
    program_.extend(table_);
    Sm sm(0, spec_);
    sm.set_issue_observer([issues](uint64_t c, uint32_t w, const Dim3&, uint32_t i) { issues->push_back({c, w, i}); });
    KernelLaunch l;
    l.program = &program_;
    l.warps_per_block = uint32_t(std::max(first.warps.size(), second.warps.size()));
    l.occupancy = compute_occupancy(spec_, KernelShape{32 * l.warps_per_block, 32, 0});
    auto hand_over = [&](const BlockTrace& b, uint64_t now) {
      if (how == Handover::kAccept) sm.accept(l, std::make_unique<BlockTrace>(b), now);
      else sm.offer(l, std::make_unique<BlockTrace>(b), now);
    };
    hand_over(first, 0);
    uint64_t now = 0;
    for (;; ++now) {
      if (now == second_at) hand_over(second, now);
      if (!sm.tick(now) && now >= second_at) break;
    }
    stats_ = sm.take_stats();
    return now;
  }

  // Memory below the L1 for run_with_memory: answers every request after a fixed latency.
  struct MemoryLog {
    std::vector<MemPacket> requests;        // in arrival order
    std::vector<uint64_t> request_cycles;   // the cycle each became visible
  };
  // Runs one block on an SM with an L1D; requests are answered `latency`
  // cycles after they become visible (replies limited by the port capacity).
  uint64_t run_with_memory(const BlockTrace& block, const L1dSpec& l1d, uint64_t latency, MemoryLog* log = nullptr,
                           std::vector<Issue>* issues = nullptr) {
    program_.extend(table_);
    Sm sm(0, spec_);
    PortClock port_clock;  // stays at 0: settle() below publishes everything each cycle
    LatchedQueue<MemPacket> to_memory(l1d.miss_queue, &port_clock), from_memory(32, &port_clock);
    L1DataCache l1(sm.id(), l1d, spec_.unified_l1_shared_kb, spec_.ldst_queue_entries);
    l1.connect(&to_memory, &from_memory);
    sm.attach_memory(std::move(l1));
    if (issues)
      sm.set_issue_observer([issues](uint64_t c, uint32_t w, const Dim3&, uint32_t i) { issues->push_back({c, w, i}); });
    KernelLaunch l;
    l.program = &program_;
    l.warps_per_block = uint32_t(block.warps.size());
    l.occupancy = compute_occupancy(spec_, KernelShape{32 * l.warps_per_block, 32, 0});
    sm.accept(l, std::make_unique<BlockTrace>(block), 0);
    std::deque<std::pair<uint64_t, MemPacket>> replies;
    uint64_t now = 0;
    for (; sm.tick(now); ++now) {
      while (!to_memory.empty()) {
        if (log) {
          log->requests.push_back(to_memory.front());
          log->request_cycles.push_back(now);
        }
        replies.emplace_back(now + latency, to_memory.front().reply());
        to_memory.pop();
      }
      while (!replies.empty() && replies.front().first <= now && from_memory.can_stage()) {
        from_memory.stage(replies.front().second);
        replies.pop_front();
      }
      to_memory.settle();
      from_memory.settle();
      if (now > 1000000) break;
    }
    stats_ = sm.take_stats();
    return now;
  }

 private:
  SmSpec spec_;
  StaticTable table_;
  KernelProgram program_;
  SmStats stats_;
};


}  // namespace lockstep::test
