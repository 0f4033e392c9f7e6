#pragma once
// Phase B of a core cycle (parallel/gpu.h) on the schedule's threads: every
// piece of work runs exactly once per cycle. A piece is a cluster of SMs or a
// memory-side unit; pieces meet only at latched ports, so the order of the
// work, the thread that runs each piece and what runs beside it do not
// matter. The engine knows nothing of kernels, traces or memory: it shares
// the pieces out to threads (Partition, Schedule), runs the team's fork-join
// (WorkerTeam on the chosen semaphores), falls back to the leader alone when
// a cycle's work is too small to pay for the handshake (SerialFallback),
// rebalances by measured time (balanced), lets a thread done early help the
// others (ShareCursor), and gathers what fast-forward needs of the pieces.
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "parallel/engine_options.h"
#include "parallel/engine_report.h"

namespace lockstep {

class ShareCursor;

// One piece of a core cycle's work.
class EnginePiece {
 public:
  virtual ~EnginePiece() = default;
  // The piece's work in core cycle `now`.
  virtual void run(uint64_t now) = 0;
  // Right after run(now), on the same thread: the first cycle after `now` in
  // which the piece may do more than repeat cycle `now` (now + 1: the next).
  virtual uint64_t quiet_until(uint64_t now) const = 0;
};

class CycleEngine {
 public:
  // `clusters` (shuffled with shuffle_seed; kept off para2's memory threads)
  // and `units` (the memory side) outlive the engine. Starts the team of a
  // threaded schedule; `report` is filled as the run goes.
  CycleEngine(std::vector<EnginePiece*> clusters, std::vector<EnginePiece*> units, const EngineOptions& options,
              EngineReport& report);
  ~CycleEngine();  // stops the team
  CycleEngine(const CycleEngine&) = delete;
  CycleEngine& operator=(const CycleEngine&) = delete;

  // Runs every piece once for core cycle `now` (the leader; between calls the
  // leader may read and write what the pieces touch).
  void run_cycle(uint64_t now);
  // With fast_forward, after run_cycle(now): the earliest quiet_until of the
  // pieces (UINT64_MAX when none may ever change), now + 1 at the least.
  uint64_t quiet_until(uint64_t now) const;
  // Cycles jumped over (fast-forward) instead of run.
  void skip(uint64_t cycles) { report_.skipped_cycles += cycles; }
  // The end of the run: the profile, the wall time, the helpers' and the handshake's figures.
  void finish();

 private:
  struct Team;
  // What one thread runs in phase B: indices into units_, then clusters_.
  struct ThreadShare {
    std::vector<uint32_t> clusters;  // in tick order
    std::vector<uint32_t> units;
    // Its units, then its clusters, as run_piece indexes them (index_pieces).
    struct Piece {
      EnginePiece* piece;
      uint32_t item;  // cost index: cluster c, or clusters + unit u
    };
    std::vector<Piece> pieces;
  };
  // Rebuilds every share's `pieces` from its clusters and units.
  void index_pieces();
  // Per thread, written during its share and read by the leader after the join.
  struct alignas(64) ThreadTally {
    uint64_t quiet_until = 0;  // the earliest quiet_until of the pieces it ran (fast-forward)
    uint64_t helped = 0;       // pieces of other threads it ran (EngineReport)
  };
  using PieceClock = std::chrono::steady_clock;

  // Thread `t`'s share of cycle `now`: its own pieces, then any another thread has not started.
  void run_share(uint32_t t, uint64_t now);
  // Piece i of thread `owner`'s share (its units, then its clusters); lowers `quiet`.
  void run_piece(uint32_t owner, uint32_t i, uint64_t now, uint64_t& quiet);
  // Assigns clusters and units to the threads; with measured costs (clusters,
  // then units), longest first to the least loaded thread.
  void assign_work(const std::vector<double>* cost);
  void rebalance();

  std::vector<EnginePiece*> clusters_, units_;
  const EngineOptions options_;
  SerialFallback fallback_;  // options_.serial_fallback, or the handshake's thresholds when automatic
  EngineReport& report_;
  const uint32_t threads_;
  const bool balanced_;
  std::vector<ThreadShare> shares_;
  std::unique_ptr<ShareCursor[]> share_cursors_;  // per thread: its pieces not yet claimed in this cycle
  std::vector<ThreadTally> tallies_;
  std::unique_ptr<Team> team_;  // threaded schedules
  bool team_running_ = false;   // phase B runs on the team (set by the leader around the fork-join)
  bool serial_stretch_ = false;  // the serial fallback holds
  std::mt19937_64 rng_;          // shuffle_seed
  uint64_t now_ = 0;             // the cycle phase B runs (read by the team's threads)
  // Balanced: each piece is timed in the last measured_cycles_ of every
  // period_ simulated cycles, and the work is reassigned after them.
  const uint64_t period_, measured_cycles_;
  uint64_t simulated_ = 0;
  bool measure_ = false;
  bool pieces_stale_ = true;  // shares_ changed since index_pieces()
  std::vector<uint64_t> item_ns_;     // time per cluster, then per unit, while measuring
  std::vector<uint64_t> profile_ns_;  // with profile: the sums over the whole run
  std::vector<double> smoothed_cost_;  // balanced: measured costs, averaged with the earlier windows'
  const PieceClock::time_point wall_start_;
  PieceClock::time_point last_cycle_end_;  // profile: the leader's serial time runs from here
};

}  // namespace lockstep
