#pragma once
// Kernels and their blocks, the leader's part of a core cycle (parallel/gpu.h).
//
// Launches: kernels start in job order, the first at once, each later one
// gpu.kernel_launch_latency cycles after it could start: without
// gpu.concurrent_kernels, once the previous kernel finished; with it, once
// every running kernel has handed out all its blocks and none of them is on
// its CUDA stream (at most kStatSlots at once, each with a statistics slot of
// its own). A kernel's MemcpyHtoD commands run through the memory model's
// copy engine when it launches. With CacheControl::kAll a kernel also waits
// until nothing runs and the memory system is idle, and the memory-side caches
// are flushed after its copies (a profiler's cache flush between kernels). The next job's blocks are opened when the job
// before it launches, so that they are decoded ahead (TraceSource::open_blocks_ahead).
//
// Dispatch: at most one block per SM per cycle; SMs are visited round robin
// from the one after the last that received a block, and each takes a block
// of the oldest running kernel that fits it (an SM holds blocks of one kernel
// at a time). The dispatcher reads only the SMs' views (SmView), which the
// cluster pieces refresh; it offers a block, which the SM accepts in its tick.
//
// Kernel-level costs (LaunchSpec, keys launch.*), what a profiler counts in a
// kernel's elapsed cycles beside its blocks' work: a kernel starts (its
// KernelResult::start_cycle) when it launches, and its first block may go to
// an SM launch.kernel_start_cycles later; after a block launch the next one
// may go launch.block_interval_cycles later anywhere on the GPU, and
// launch.sm_block_interval_cycles later to the same SM; a kernel whose blocks
// have all retired ends launch.kernel_drain_cycles later (its cycles include
// the drain; kernels after it wait for it). Each 0 turns its cost off, and
// with all four 0 the dispatch is exactly the one without costs. Every
// decision is the leader's, in phase A or C, from counters it alone keeps.
//
// Retirement: the blocks the views report retired are counted to their
// kernels; a kernel whose blocks have all retired completes (KernelResult)
// once its drain has passed.
//
// Statistics: an SM's counters go to the kernel it held when it changes
// kernel and at the end (take_results); the memory model's when the kernel
// completes or is cut. With per-unit statistics each result also keeps them
// per SM and per memory instance, collected at the same points.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sm_model.h"
#include "frontend/trace/trace_source.h"
#include "memsys/memory_model.h"
#include "memsys/staged_ports.h"
#include "parallel/gpu_pieces.h"
#include "configs/spec/gpu_spec.h"
#include "parallel/kernel_job.h"
#include "parallel/run_options.h"
#include "parallel/simulation_error.h"

namespace lockstep {

class KernelDispatcher {
 public:
  // Everything given outlives the dispatcher; `views` are the SMs' (SmView).
  // per_unit_stats: RunOptions::per_unit_stats (each result also per SM and
  // per memory instance); drop_retirements_for_tests: TestSwitches::drop_retirements.
  KernelDispatcher(const GpuSpec& spec, std::vector<std::unique_ptr<SmModel>>& sms, const std::vector<SmView>& views,
                   MemoryModel& memory, TraceSource& trace, const std::vector<KernelJob>& jobs,
                   bool memcpy_warms_l2, CacheControl cache_control, bool per_unit_stats,
                   bool drop_retirements_for_tests);
  ~KernelDispatcher();
  // Marks SM s in `marks` (parity 0) whenever a block is offered to it, so
  // that the cluster pieces visit only SMs with something to do (optional).
  void mark_offers_in(StagedPorts* marks) { offer_marks_ = marks; }

  // Phase A of cycle `now`: a launch when one is due, then block dispatch.
  // `views_changed`: a view changed in the cycle before (else the views are
  // what the last scan saw, and only a new launch has anything to place).
  void launch_and_dispatch(uint64_t now, bool views_changed);
  // Phase C of cycle `now`: the retirements the views show (read only when
  // `views_changed`) and the kernels they complete. Throws SimulationError
  // when a waiting block fits no SM even when every SM is empty.
  void retire(uint64_t now, bool views_changed);
  // At the cycle budget's end (`end`: the first cycle not run): the running
  // kernels' results, truncated.
  void truncate(uint64_t end);

  bool finished() const { return running_.empty() && next_job_ >= jobs_.size(); }
  bool nothing_running() const { return running_.empty(); }
  uint32_t kernels_finished() const { return uint32_t(results_.size() - running_.size()); }
  uint32_t kernels_to_run() const { return uint32_t(jobs_.size()); }
  uint64_t blocks_moved() const { return blocks_moved_; }  // dispatched or retired, so far
  uint64_t warp_insts_issued() const;  // by every kernel so far
  // Fast-forward, after phase C of cycle `now`: the first cycle in which the
  // dispatcher may act (now + 1 when a waiting block fits an SM).
  uint64_t next_change(uint64_t now) const;
  // For the watchdog: each running kernel's blocks, each entry ending in ';'.
  std::string describe_running() const;

  // The results so far, in job order: every SM's counters collected first.
  // Those of kernels still running are incomplete.
  std::vector<KernelResult> take_results();
  const std::vector<KernelResult>& results() const { return results_; }

 private:
  StagedPorts* offer_marks_ = nullptr;
  static constexpr uint64_t kNotDrained = UINT64_MAX;
  // A kernel between its launch and the end of its drain.
  struct RunningKernel {
    size_t job = 0;
    KernelLaunch launch;
    uint64_t stream = 0;
    std::unique_ptr<BlockCursor> cursor;
    const StaticTable* table = nullptr;
    KernelProgram* program = nullptr;
    std::unique_ptr<BlockTrace> next;  // the next block to dispatch; null once all are out
    uint64_t dispatched = 0;
    uint64_t retired = 0;
    uint64_t first_block_at = 0;      // the first cycle a block of it may go to an SM
    uint64_t ends_at = kNotDrained;   // the last cycle of its drain, once its last block retired
    uint8_t stat_slot = 0;

    // Reads the next block into `next`, into storage from `spares` when there is some.
    void pull(std::vector<std::unique_ptr<BlockTrace>>& spares);
    bool blocks_done() const { return !next && retired == dispatched; }
  };
  // Whether the next job could start, given what is running.
  bool may_launch() const;
  // The cycle at which the next job launches, if it may launch now (UINT64_MAX: not yet).
  uint64_t launch_due() const;
  void launch(uint64_t now);
  void dispatch(uint64_t now);
  // Opens the next job's blocks ahead (its first wave decoded on the
  // stream's helper), once the kernels before it have handed out all their
  // blocks: decoded earlier, they would wait beside every resident block.
  void open_next_job_ahead();
  // The first cycle at or after `now` in which SM `s` may take a block of `rk`
  // as far as the launch costs go (whether it fits is the view's to say).
  uint64_t block_slot(const RunningKernel& rk, uint32_t s, uint64_t now) const {
    return std::max({now, rk.first_block_at, sm_free_at_[s], gpu_free_at_});
  }
  // Moves SM `s`'s counters to the result of the kernel it holds or held last
  // (and, with per-unit statistics, to that result's entry for the SM).
  void collect_stats(uint32_t s);
  // The memory model's counters of statistics slot `slot` into `r` (per instance too, with per-unit statistics).
  void collect_memory_stats(KernelResult& r, uint32_t slot);
  // The kernel's occupancy on these SMs (std::invalid_argument when a block cannot fit).
  Occupancy occupancy_of(const KernelInfo& info) const;
  // Blocks a kernel's launch dispatches at once: a full load of every SM.
  uint32_t first_wave(const Occupancy& o) const { return uint32_t(sms_.size()) * o.blocks_per_sm; }

  const GpuSpec& spec_;
  std::vector<std::unique_ptr<SmModel>>& sms_;
  const std::vector<SmView>& views_;
  MemoryModel& memory_;
  TraceSource& trace_;
  const TraceManifest& manifest_;
  const std::vector<KernelJob>& jobs_;
  const bool memcpy_warms_l2_;
  const CacheControl cache_control_;
  const bool per_unit_stats_, drop_retirements_;
  std::vector<KernelResult> results_;     // of the kernels launched, in job order
  std::vector<RunningKernel> running_;    // in launch order
  std::vector<std::unique_ptr<BlockTrace>> spare_blocks_;  // storage of retired blocks' traces, to decode into
  std::vector<size_t> result_of_job_;
  size_t next_job_ = 0;
  // The cycle since which the next job could start (it does kernel_launch_latency later).
  static constexpr uint64_t kNotReady = UINT64_MAX;
  uint64_t ready_since_ = kNotReady;
  // The next job's blocks, opened when the jobs before it had handed out their last block.
  std::unique_ptr<BlockCursor> prefetched_;
  size_t prefetched_job_ = SIZE_MAX;
  uint32_t last_dispatch_;      // the SM that received the last block
  bool launched_ = true;        // a kernel launched since the last dispatch scan
  // Launch costs: the first cycle the next block may launch anywhere, to each
  // SM; a scan held back by them runs again at `rescan_at_`.
  uint64_t gpu_free_at_ = 0;
  std::vector<uint64_t> sm_free_at_;
  uint64_t rescan_at_ = UINT64_MAX;
  uint64_t blocks_moved_ = 0;
};

}  // namespace lockstep
