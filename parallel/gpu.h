#pragma once
// The GPU assembly: SIMT clusters of SMs, the memory side, the block
// dispatcher and the core cycle loop. Per core cycle, in order:
//   phase A (the leader): kernel launches; the dispatcher hands at most one
//     block to each SM that has room (SMs visited round robin from the one
//     after the last that received a block; kernels in launch order); the
//     memory-side clock edges that fall after the previous core edge and no
//     later than this one are listed (parallel/clock_domains.h);
//   phase B (shared by the schedule's threads): every memory-side unit
//     (request crossbar, reply crossbar, each memory partition: memsys/
//     memory_system.h) runs those edges, and every cluster ticks its SMs;
//   phase C (the leader): retired blocks close kernels, and, when no
//     component can change state before a later cycle, the clock jumps there
//     (fast-forward).
// The latched ports need no step of their own between cycles: each consumer
// takes in what was staged in the previous cycle when its own cycle starts
// (memsys/latched_queue.h).
// In phase B the SMs and the memory-side units meet only at latched ports,
// so the order of the work, the thread that runs each piece and what runs
// beside it do not matter; `shuffle_seed` permutes the cluster order every
// cycle to prove that. A kernel's MemcpyHtoD commands run through the copy
// engine when it launches.
//
// Kernels start in trace order, the first at once, each later one
// `kernel_launch_latency` cycles after it could start: without
// `concurrent_kernels`, once the previous kernel finished; with it, once every
// running kernel has handed out all its blocks and none of them is on its
// CUDA stream. An SM holds blocks of one kernel at a time.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/kernel_program.h"
#include "core/sm.h"
#include "memsys/memory_stats.h"
#include "memsys/memory_system.h"
#include "parallel/clock_domains.h"
#include "frontend/trace/trace_source.h"
#include "configs/spec/gpu_spec.h"
#include "parallel/semaphore.h"
#include "parallel/share_cursor.h"

namespace lockstep {

// A run that cannot go on: no progress (watchdog) or an impossible kernel.
class SimulationError : public std::runtime_error {
 public:
  explicit SimulationError(const std::string& what) : std::runtime_error(what) {}
};

// How the simulation threads share a core cycle (ARCHITECTURE §5).
enum class Schedule : uint8_t {
  kSeq = 0,  // one thread: memory side, then every cluster
  kPara1,    // clusters over every thread; the memory side on the leader (balanced: anywhere)
  kPara2,    // the memory side on threads of its own (max(1, threads / 4); balanced: sized by cost)
};
enum class Partition : uint8_t {
  kContiguous = 0,  // equal contiguous ranges of clusters per thread
  kRoundRobin,      // cluster c to thread c mod threads
  kBalanced,        // every cluster and memory-side unit by its measured time (longest first, to the least loaded)
};
const char* schedule_name(Schedule s);
const char* partition_name(Partition p);
Schedule parse_schedule(const std::string& text);    // throws std::invalid_argument
Partition parse_partition(const std::string& text);  // throws std::invalid_argument

// Figures of how a run used its threads (not deterministic; never in the statistics).
struct EngineReport {
  uint32_t threads = 1;
  uint32_t memory_threads = 0;   // threads that ran only memory-side units (para2)
  uint64_t parallel_cycles = 0;  // core cycles run by the whole team
  uint64_t serial_cycles = 0;    // core cycles run by the leader alone
  uint64_t skipped_cycles = 0;   // core cycles jumped over (fast-forward)
  uint64_t handshake_wait_ns = 0;  // the leader's time waiting at the per-cycle join
  uint64_t rebalances = 0;         // partition changes (balanced)
  uint64_t helped_pieces = 0;      // pieces run by a thread other than their owner (a thread done early helps)
  // With GpuRunOptions::profile: time per piece of work, summed over the
  // simulated cycles: each cluster, then each memory-side unit; and the
  // leader's serial phases A and C.
  std::vector<uint64_t> cluster_ns, unit_ns;
  uint64_t serial_ns = 0;
  uint64_t wall_ns = 0;  // the whole run
};

// The adaptive serial fallback of the threaded schedules, by the wall time of
// a cycle's phase B: after a team cycle shorter than serial_below, cycles run
// on the leader alone until one takes longer than parallel_above. Tests
// change it: off() runs every simulated cycle of a threaded schedule on the
// team, so that a threaded check checks threads.
struct SerialFallback {
  std::chrono::nanoseconds serial_below = std::chrono::microseconds(6);
  std::chrono::nanoseconds parallel_above = std::chrono::microseconds(12);
  static SerialFallback off() {
    SerialFallback f;
    f.serial_below = std::chrono::nanoseconds(0);  // no phase B takes less
    return f;
  }
  bool is_off() const { return serial_below <= std::chrono::nanoseconds(0); }
};

struct GpuRunOptions {
  Schedule schedule = Schedule::kSeq;
  uint32_t threads = 1;          // simulation threads, the memory-side thread included
  Partition partition = Partition::kContiguous;
  HandshakeKind handshake = HandshakeKind::kSpinFutex;  // the per-cycle semaphores (parallel/semaphore.h)
  std::optional<uint64_t> shuffle_seed;  // tick clusters in a random order each cycle
  // Tests only: a deliberately unlatched coupling — each SM, before it ticks,
  // reads its neighbour's live instruction count and skips the cycle when it
  // is odd (unless a block was just dispatched to it). Its result depends on
  // tick order and threads (a data race when threaded): the identity checks
  // must catch it. Never use it otherwise.
  bool unlatched_coupling_for_tests = false;
  SerialFallback serial_fallback;  // tests only change it (results are the same either way)
  // Tests only: the leader never hears of a retired block, so a kernel whose
  // blocks have all ended never finishes — a run that makes no progress with
  // no warp resident, for the watchdog to stop. Never use it otherwise.
  bool drop_retirements_for_tests = false;
  bool fast_forward = true;   // jump over cycles in which nothing can change (results are the same)
  bool pin_threads = false;   // pin thread i to CPU i (parallel/thread_affinity.h)
  bool profile = false;       // time every piece of work (EngineReport)
  uint32_t rebalance_period = 4096;  // balanced: cycles between reassignments (>= 4; tests use short ones)
  uint64_t cycle_budget = 0;             // stop after this many cycles (0: no limit)
  // MemcpyHtoD commands leave the copied bytes in the L2 (Accel-Sim's
  // -gpgpu_perf_sim_memcpy); false: every kernel starts with the caches as
  // the kernels before it left them, the first with cold caches.
  bool memcpy_warms_l2 = true;
  // Called every 65536 cycles with (kernels finished, cycles so far, warp instructions so far).
  std::function<void(uint32_t, uint64_t, uint64_t)> progress;
};

struct KernelJob {
  uint32_t kernel_index = 0;
  KernelProgram* program = nullptr;  // extended as the kernel's static table grows (text traces)
  std::vector<MemcpyHtoD> copies_before;  // host-to-device copies that precede the launch
};

struct KernelResult {
  uint32_t kernel_index = 0;
  uint64_t start_cycle = 0;  // first cycle the kernel could dispatch a block
  uint64_t cycles = 0;       // from start_cycle to the retirement of its last block
  bool truncated = false;    // stopped by the cycle budget
  bool complete = false;     // its last block retired
  Occupancy occupancy;
  SmStats stats;             // counters of the SMs while they held this kernel's blocks
  MemoryStats memory;        // the memory side's counters for this kernel's traffic
};

class Gpu {
 public:
  // perfect_memory: global/local accesses take sm.perfect_memory_latency and
  // no memory side is built.
  Gpu(const GpuSpec& spec, bool perfect_memory);
  ~Gpu();

  // Simulates `jobs` (in order) to completion or until the cycle budget ends.
  // Results come in job order; kernels not reached are absent.
  std::vector<KernelResult> run(TraceSource& trace, const std::vector<KernelJob>& jobs, const GpuRunOptions& options);
  // After run() threw (a corrupt trace, the watchdog): the results of the
  // kernels it had launched, in job order; those whose last block retired
  // (KernelResult::complete) with all their counters.
  std::vector<KernelResult> results_before_error();

  const GpuSpec& spec() const { return spec_; }
  uint32_t sm_count() const { return uint32_t(sms_.size()); }
  uint64_t cycles() const { return clock_; }  // core cycles simulated so far, launch gaps included
  const EngineReport& engine_report() const { return engine_; }

 private:
  // What one thread runs in phase B.
  struct ThreadShare {
    std::vector<uint32_t> clusters;  // in tick order
    std::vector<uint32_t> units;     // memory-side units
  };
  // Thread `t`'s share of core cycle `now` (phase B of the cycle): its own
  // pieces, then any another thread has not started.
  void run_share(uint32_t t, uint64_t now);
  // What a thread's pieces tell the leader: see ThreadTally.
  struct PieceTally {
    uint64_t quiet_until = 0;
    bool views_changed = false;
  };
  // Piece i of thread `owner`'s share (its units, then its clusters).
  void run_piece(uint32_t owner, uint32_t i, uint64_t now, PieceTally& tally);
  void run_unit(uint32_t unit);
  // Timing of one piece (clusters, then units) while measuring: start, then add to item_ns_[item].
  using PieceClock = std::chrono::steady_clock;
  PieceClock::time_point piece_start() const;
  void piece_end(size_t item, PieceClock::time_point start);
  // Ticks cluster c's SMs and refreshes their views; lowers tally.quiet_until
  // to the earliest Sm::quiet_until of its SMs, sets tally.views_changed when
  // a view changed.
  void run_cluster(uint32_t c, uint64_t now, PieceTally& tally);
  // Assigns clusters and memory-side units to the threads; with measured
  // costs (clusters, then units), longest first to the least loaded thread.
  void assign_work(uint32_t threads, Schedule schedule, Partition partition, const std::vector<double>* cost);
  // Fast-forward: after cycle `now`, the first cycle in which the memory
  // side or an SM can change state; now + 1 when that is the next one.
  uint64_t next_change(uint64_t now) const;
  // Skips cycles now + 1 .. until - 1 (every one a repetition).
  void skip_cycles(uint64_t now, uint64_t until);
  // Moves the SM's counters to the result of the kernel it holds or held last.
  void collect_stats(Sm& sm);

  const GpuSpec& spec_;
  std::vector<std::unique_ptr<Sm>> sms_;
  std::unique_ptr<MemorySystem> memory_;  // null with perfect memory
  ClockDomains clocks_;
  std::vector<MemoryEdge> edges_;          // this core cycle's memory-side edges (phase A)
  std::vector<ThreadShare> shares_;        // per thread
  // Per thread: which of its pieces (units, then clusters) are not yet
  // claimed in this cycle; reset by the leader before each phase B.
  std::unique_ptr<ShareCursor[]> share_cursors_;
  // Per thread, written during its share: with fast-forward, the earliest
  // Sm::quiet_until of the SMs it ticked (read by the leader in phase C);
  // whether it changed an SM's view or one of its SMs retired a block (else
  // the leader's phases C and A need not read the views again: nothing
  // retired and no SM has more room than before); and how many pieces of
  // other threads it ran
  // (EngineReport).
  struct alignas(64) ThreadTally {
    uint64_t quiet_until = 0;
    bool views_changed = false;
    uint64_t helped = 0;
  };
  std::vector<ThreadTally> tallies_;
  // Per SM, refreshed by the thread that ticked it at the end of its share
  // (each field written only when it changes): what the leader's phases C
  // and A need of the SM, so the leader never reads the SMs' own cache lines.
  struct SmView {
    Sm::Residency residency;
    uint32_t retired = 0;  // blocks retired in the cycle just run
  };
  std::vector<SmView> sm_views_;
  bool fast_forward_ = false;
  // Time per cluster, then per memory-side unit, while measuring (balanced, profile).
  std::vector<uint64_t> item_ns_;
  bool measure_ = false;
  bool unlatched_coupling_ = false;
  bool team_running_ = false;  // phase B runs on the team (set by the leader around the fork-join)
  EngineReport engine_;
  std::vector<KernelResult> results_;  // of the run under way, in job order
  uint64_t clock_ = 0;
};

}  // namespace lockstep
