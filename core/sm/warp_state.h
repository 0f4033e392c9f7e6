#pragma once
// The state of one resident warp in a cycle-model SM, shared by its stages:
// fetch fills its instruction buffer, the scheduler orders it, issue advances
// it, the LD/ST unit and writeback count its results in flight.
#include <algorithm>
#include <array>
#include <cstdint>

#include "core/sm/scoreboard.h"
#include "frontend/trace/block_trace.h"

namespace lockstep {

inline constexpr uint32_t kCopyGroups = 16;  // LDGSTS groups tracked per warp
inline constexpr uint32_t kNoCopyGroup = UINT32_MAX;

// Laid out for the issue stage, which reads a few warps of every SM every
// cycle: a warp starts on a cache line (alignas), the fields issue reads of
// every warp it considers come first, and the scoreboard right after them, so
// that its first registers (the ones most instructions name) share that
// first line; what fetch, barriers and copy groups use comes last.
struct alignas(64) WarpState {
  // What issue reads of every warp it considers.
  uint32_t next_fetch = 0;      // trace index of the next instruction to fetch
  uint32_t next_issue = 0;      // trace index of the next instruction to issue
  uint64_t fetch_ready = 0;     // decoded instructions up to next_fetch are issuable from this cycle
  // The sub-core resource the next instruction competes for in issue
  // (Sm::issue): its bit in the cycle's used-resources mask (kIssueMemory, a
  // unit class's bit, or 0 for control flow that needs none).
  uint32_t next_resource = 0;
  // A copy of the next instruction's trace record (its static id indexes the
  // kernel program): issue reads no trace record of a warp that it issues.
  WarpInstruction next{};
  bool at_barrier = false;
  // The next instruction waits on the scoreboard: nothing to check until a
  // result of this warp is written back (the only event that clears a bit).
  bool scoreboard_blocked = false;
  bool waiting_membar = false;
  bool active = false;
  uint32_t trace_size = 0;      // instructions in its trace
  uint32_t outstanding = 0;     // results not written back yet
  bool fetch_blocked = false;   // an instruction-cache miss stops its fetch until fetch_blocked_until
  // Its trace goes on past what it reads now (a block stored in segments):
  // Sm::cross_segments moves it on before it runs low.
  bool more = false;
  // (Two flags read rarely, in the first line's padding: a WarpState stays 192 bytes.)
  bool segments_more = false;   // its block has segments with more of its trace after those taken
  bool saw_full_exit = false;
  // trace->insts.data(): fetch and issue read the next records without
  // first reading the WarpTrace (a cache line of its own).
  const WarpInstruction* insts = nullptr;
  Scoreboard scoreboard;        // its registers with a result in flight
  uint32_t outstanding_memory = 0;
  uint32_t block = 0;           // block slot
  const WarpTrace* trace = nullptr;  // what it reads: its trace, a segment's part of it, or a bridge (from trace_base)
  uint64_t fetch_blocked_until = 0;
  uint64_t age = 0;             // launch order, for GTO
  // A warp of a block stored in segments reads each segment's part of its
  // trace directly, and crosses from one to the next on a bridge: a small
  // window holding what was left of the one and the start of the next (its
  // tail), see Sm::cross_segments.
  uint32_t warp_index = 0;      // in its block
  uint32_t trace_base = 0;      // trace index of trace->insts[0]
  uint32_t next_segment = 0;    // the block segment it takes next
  uint32_t reading_segment = 0; // the segment whose part it reads (on a bridge: the tail's); UINT32_MAX: none
  uint32_t bridge_head = UINT32_MAX;  // on a bridge whose tail part goes on past it: where the tail starts
  // LDGSTS groups: copies join the open group (number `groups_closed`);
  // LDGDEPBAR closes it; DEPBAR waits for the closed groups to drain.
  uint32_t groups_closed = 0;
  std::array<uint16_t, kCopyGroups> group_pending{};

  // Reads `t` from its start (trace, insts and trace_size together).
  void read(const WarpTrace& t) {
    trace = &t;
    insts = t.insts.data();
    trace_size = uint32_t(t.insts.size());
  }
  // The LDGSTS group a copy issued now joins (counted pending until its writeback).
  uint32_t join_copy_group() {
    const uint32_t group = groups_closed % kCopyGroups;
    ++group_pending[group];
    return group;
  }
  // Closed LDGSTS groups still in flight (DEPBAR).
  uint32_t closed_groups_in_flight() const {
    uint32_t in_flight = 0;
    for (uint32_t back = 1; back <= std::min(groups_closed, kCopyGroups); ++back)
      in_flight += group_pending[(groups_closed - back) % kCopyGroups] > 0;
    return in_flight;
  }
};
static_assert(sizeof(WarpState) == 192, "a WarpState is three cache lines");

}  // namespace lockstep
