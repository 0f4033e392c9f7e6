#pragma once
// The GPU assembly: SIMT clusters of SMs, the block dispatcher and the core
// cycle loop of the sequential schedule. Per core cycle, in order: the
// dispatcher hands at most one block to each SM that has room (SMs visited
// round robin from the one after the last that received a block; kernels in
// launch order) [phase A, the leader]; then the memory side runs its edges up
// to this core edge and every cluster ticks its SMs [phase B, shared by the
// threads of the schedule]; then the SMs' memory ports commit and retired
// blocks close kernels [phase C, the leader]. In phase B the SMs and the
// memory side meet only at latched ports, so the cluster order, the thread
// that runs a cluster and whether the memory side runs beside them do not
// matter; `shuffle_seed` permutes the order every cycle to prove that.
//
// With the memory system (not --perfect-memory) each core cycle first runs
// the memory side's interconnect, L2 and DRAM edges that fall after the
// previous core edge and no later than this one (parallel/clock_domains.h),
// then the dispatcher and the SMs, then commits the SMs' memory ports. A
// kernel's MemcpyHtoD commands run through the copy engine when it launches.
//
// Kernels start in trace order, the first at once, each later one
// `kernel_launch_latency` cycles after it could start: without
// `concurrent_kernels`, once the previous kernel finished; with it, once every
// running kernel has handed out all its blocks and none of them is on its
// CUDA stream. An SM holds blocks of one kernel at a time.
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
#include "parallel/gpu_spec.h"
#include "parallel/semaphore.h"

namespace lockstep {

// A run that cannot go on: a stuck warp (watchdog) or an impossible kernel.
class SimulationError : public std::runtime_error {
 public:
  explicit SimulationError(const std::string& what) : std::runtime_error(what) {}
};

// How the simulation threads share a core cycle (ARCHITECTURE §5).
enum class Schedule : uint8_t {
  kSeq = 0,  // one thread: memory side, then every cluster
  kPara1,    // the leader runs the memory side and its clusters; workers run theirs
  kPara2,    // para1, with the memory side on a thread of its own
};
enum class Partition : uint8_t {
  kContiguous = 0,  // equal contiguous ranges of clusters per thread
  kRoundRobin,      // cluster c to thread c mod threads
  kBalanced,        // contiguous ranges resized from each thread's measured time
};
const char* schedule_name(Schedule s);
const char* partition_name(Partition p);
Schedule parse_schedule(const std::string& text);    // throws std::invalid_argument
Partition parse_partition(const std::string& text);  // throws std::invalid_argument

// Figures of how a run used its threads (not deterministic; never in the statistics).
struct EngineReport {
  uint32_t threads = 1;
  uint64_t parallel_cycles = 0;  // core cycles run by the whole team
  uint64_t serial_cycles = 0;    // core cycles run by the leader alone
  uint64_t handshake_wait_ns = 0;  // the leader's time waiting at the per-cycle join
  uint64_t rebalances = 0;         // partition changes (balanced)
};

struct GpuRunOptions {
  Schedule schedule = Schedule::kSeq;
  uint32_t threads = 1;          // simulation threads, the memory-side thread included
  Partition partition = Partition::kContiguous;
  HandshakeKind handshake = HandshakeKind::kSpinFutex;  // the per-cycle semaphores (parallel/semaphore.h)
  std::optional<uint64_t> shuffle_seed;  // tick clusters in a random order each cycle
  // Tests only: a deliberately unlatched coupling — each SM, before it ticks,
  // reads its neighbour's live instruction count and skips the cycle when it
  // is odd. Its result depends on tick order and threads (a data race when
  // threaded): the identity checks must catch it. Never use it otherwise.
  bool unlatched_coupling_for_tests = false;
  uint64_t cycle_budget = 0;             // stop after this many cycles (0: no limit)
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

  const GpuSpec& spec() const { return spec_; }
  uint32_t sm_count() const { return uint32_t(sms_.size()); }
  uint64_t cycles() const { return clock_; }  // core cycles simulated so far, launch gaps included
  const EngineReport& engine_report() const { return engine_; }

 private:
  // Memory-side edges up to core cycle `now`, in time order.
  void run_memory_edges(uint64_t now);
  // Thread `t`'s share of core cycle `now` (phase B of the cycle).
  void run_share(uint32_t t, uint64_t now);
  // Assigns clusters to the SM-owning threads.
  void partition_clusters(uint32_t sm_threads, Partition partition, const std::vector<double>* cost);

  const GpuSpec& spec_;
  std::vector<std::unique_ptr<Sm>> sms_;
  std::unique_ptr<MemorySystem> memory_;  // null with perfect memory
  ClockDomains clocks_;
  std::vector<std::vector<uint32_t>> clusters_of_;  // per SM-owning thread, in tick order
  uint32_t memory_thread_ = 0;                     // the thread that runs the memory side
  std::vector<uint64_t> share_ns_;                 // per thread: time in its shares (balanced)
  uint64_t memory_ns_ = 0;
  bool measure_ = false;
  bool unlatched_coupling_ = false;
  EngineReport engine_;
  uint64_t clock_ = 0;
};

}  // namespace lockstep
