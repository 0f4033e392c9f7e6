#pragma once
// The GPU assembly: SIMT clusters of SMs and the memory model below them
// (parallel/memory_models.h), run core cycle by core cycle. Per cycle, in order:
//   phase A (the leader): kernel launches and block dispatch
//     (parallel/kernel_dispatcher.h); the memory-side clock edges that fall
//     after the previous core edge and no later than this one are listed
//     (parallel/clock_domains.h);
//   phase B (the cycle engine, on the schedule's threads: parallel/cycle_engine.h):
//     every memory-side unit runs those edges, and every cluster ticks its SMs;
//   phase C (the leader): retired blocks close kernels; the watchdog
//     (parallel/watchdog.h) looks; when no component can change state before
//     a later cycle, the clock jumps there (fast-forward).
// The latched ports need no step of their own between cycles: each consumer
// takes in what was staged in the previous cycle when its own cycle starts
// (memsys/latched_queue.h).
// In phase B the SMs and the memory-side units meet only at latched ports,
// so the order of the work, the thread that runs each piece and what runs
// beside it do not matter; `shuffle_seed` permutes the cluster order every
// cycle to prove that.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sm_model.h"
#include "memsys/heap_separator.h"
#include "memsys/memory_model.h"
#include "parallel/clock_domains.h"
#include "parallel/engine_report.h"
#include "parallel/gpu_pieces.h"
#include "configs/spec/gpu_spec.h"
#include "parallel/kernel_job.h"
#include "parallel/simulation_error.h"

namespace lockstep {

class KernelDispatcher;
class TraceSource;
struct RunOptions;

class Gpu {
 public:
  // `sm_model`: a name of parallel/sm_models.h ("cycle"); `memory_model`: a
  // name of parallel/memory_models.h ("cycle", "perfect"); throws
  // std::invalid_argument for another.
  Gpu(const GpuSpec& spec, const std::string& sm_model, const std::string& memory_model);
  ~Gpu();

  // Simulates `jobs` (in order) to completion or until the cycle budget
  // (RunOptions::max_cycles) ends. Results come in job order; kernels not
  // reached are absent.
  std::vector<KernelResult> run(TraceSource& trace, const std::vector<KernelJob>& jobs, const RunOptions& options);
  // After run() threw (a corrupt trace, the watchdog): the results of the
  // kernels it had launched, in job order; those whose last block retired
  // (KernelResult::complete) with all their counters.
  std::vector<KernelResult> results_before_error();

  const GpuSpec& spec() const { return spec_; }
  uint32_t sm_count() const { return uint32_t(sms_.size()); }
  uint64_t cycles() const { return clock_; }  // core cycles simulated so far, launch gaps included
  const EngineReport& engine_report() const { return engine_; }

 private:
  // Fast-forward, after cycle `now`: the first cycle in which the memory
  // model can change state (now + 1 when that is the next one).
  uint64_t memory_quiet_until(uint64_t now) const;
  // Skips cycles now + 1 .. until - 1 (every one a repetition).
  void skip_cycles(uint64_t now, uint64_t until);

  const GpuSpec& spec_;
  ClockDomains clocks_;
  HeapSeparator separator_;  // between the SMs' and their memory ports' heap blocks (before them: freed last)
  std::vector<std::unique_ptr<SmModel>> sms_;
  std::unique_ptr<MemoryModel> memory_;
  std::vector<MemoryEdge> edges_;  // this core cycle's memory-side edges (phase A)
  std::vector<SmView> sm_views_;
  StagedPorts sm_offers_;  // SMs offered a block for the coming cycle (the dispatcher marks, the clusters take)
  std::vector<std::unique_ptr<SmClusterPiece>> clusters_;
  std::vector<std::unique_ptr<MemoryUnitPiece>> units_;
  std::unique_ptr<KernelDispatcher> dispatcher_;  // of the last run (results_before_error)
  EngineReport engine_;
  uint64_t clock_ = 0;
};

}  // namespace lockstep
