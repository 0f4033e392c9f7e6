#include "parallel/gpu.h"

#include <algorithm>

#include "frontend/trace/trace_source.h"
#include "parallel/cycle_engine.h"
#include "parallel/kernel_dispatcher.h"
#include "parallel/memory_models.h"
#include "parallel/sm_models.h"
#include "parallel/run_options.h"
#include "parallel/watchdog.h"

namespace lockstep {

Gpu::Gpu(const GpuSpec& spec, const std::string& sm_model, const std::string& memory_model)
    : spec_(spec), clocks_(spec.clocks), sm_offers_(spec.sms) {
  for (uint32_t i = 0; i < spec.sms; ++i) {
    sms_.push_back(build_sm_model(sm_model, i, spec.sm));
    separator_.separate();
  }
  memory_ = build_memory_model(memory_model, spec, clocks_, sms_, separator_);
  // Room for every edge of a core cycle: no allocation in the cycle loop.
  edges_.reserve(size_t(clocks_.max_edges_per_core_cycle(ClockDomain::kIcnt)) +
                 clocks_.max_edges_per_core_cycle(ClockDomain::kL2) +
                 clocks_.max_edges_per_core_cycle(ClockDomain::kDram) + 3);
}

Gpu::~Gpu() = default;

uint64_t Gpu::memory_quiet_until(uint64_t now) const {
  const uint64_t dram_edges = clocks_.cycles(ClockDomain::kDram);
  if (dram_edges == 0) return now + 1;
  // Nothing moves below the SMs before a request waiting in an L2 tag
  // pipeline is ready (l2_wake) or the DRAM clock's next event.
  const uint64_t l2_wake = memory_->l2_wake();
  if (l2_wake == 0) return now + 1;
  uint64_t until = UINT64_MAX;
  if (l2_wake != UINT64_MAX) until = clocks_.core_cycle_of(ClockDomain::kL2, l2_wake);
  const uint64_t dram_event = memory_->next_event_when_idle(dram_edges - 1);
  if (dram_event != UINT64_MAX) until = std::min(until, clocks_.core_cycle_of(ClockDomain::kDram, dram_event));
  return until == UINT64_MAX ? UINT64_MAX : std::max(until, now + 1);
}

void Gpu::skip_cycles(uint64_t now, uint64_t until) {
  const uint64_t cycles = until - now - 1;
  for (const auto& sm : sms_) sm->skip_quiet_cycles(cycles);
  memory_->settle_ports();
  clocks_.skip_to(until);
}

std::vector<KernelResult> Gpu::results_before_error() {
  return dispatcher_ ? dispatcher_->take_results() : std::vector<KernelResult>{};
}

std::vector<KernelResult> Gpu::run(TraceSource& trace, const std::vector<KernelJob>& jobs, const RunOptions& options) {
  dispatcher_.reset();
  if (jobs.empty()) return {};
  dispatcher_ = std::make_unique<KernelDispatcher>(spec_, sms_, sm_views_, *memory_, trace, jobs,
                                                   options.memcpy_warms_l2, options.cache_control, options.per_unit_stats,
                                                   options.tests.drop_retirements);
  KernelDispatcher& dispatcher = *dispatcher_;
  dispatcher.mark_offers_in(&sm_offers_);
  // The pieces of phase B: the clusters of SMs, the memory model's units.
  const uint32_t nsms = uint32_t(sms_.size());
  sm_views_.assign(nsms, SmView{});
  for (uint32_t s = 0; s < nsms; ++s) sm_views_[s].residency = sms_[s]->residency();
  clusters_.clear();
  units_.clear();
  std::vector<EnginePiece*> cluster_pieces, unit_pieces;
  // On one thread nothing is shared out: one piece of all SMs and one of the
  // whole memory side (the same order of work) cost the engine one call each
  // a cycle instead of one per cluster and unit. Profiles and shuffled
  // cluster orders keep their per-cluster pieces.
  const EngineOptions& eo = options.engine;
  const bool whole = eo.threads_used() == 1 && !eo.shuffle_seed && !eo.profile;
  const uint32_t sms_per_piece = whole ? std::max(nsms, 1u) : spec_.sms_per_cluster;
  for (uint32_t first = 0; first < nsms; first += sms_per_piece) {
    const uint32_t last = std::min(first + sms_per_piece, nsms);
    clusters_.push_back(std::make_unique<SmClusterPiece>(sms_, first, last, *memory_, sm_views_, sm_offers_,
                                                         options.tests.unlatched_coupling));
    cluster_pieces.push_back(clusters_.back().get());
  }
  const uint32_t units = memory_->units();
  for (uint32_t u = 0; u < units; u += whole ? units : 1) {
    units_.push_back(std::make_unique<MemoryUnitPiece>(*memory_, u, whole ? units : u + 1, edges_));
    unit_pieces.push_back(units_.back().get());
  }
  CycleEngine engine(std::move(cluster_pieces), std::move(unit_pieces), options.engine, engine_);
  const bool fast_forward = options.engine.fast_forward;
  const uint64_t run_start = clock_, budget = options.max_cycles;
  Watchdog watchdog(spec_.watchdog_cycles, run_start);
  // The progress report looks with the watchdog, every so many cycles.
  constexpr uint64_t kProgressEvery = 65536;
  uint64_t next_progress = run_start + kProgressEvery;
  // Whether a view changed in the last phase B: otherwise the views are what
  // the last dispatch and retirement scans saw.
  bool views_changed = true, truncated = false;
  uint64_t now = clock_;
  for (;; ++now) {
    // Phase A (leader): launches, block dispatch, the memory side's edges.
    dispatcher.launch_and_dispatch(now, views_changed);
    memory_->begin_cycle(now);
    edges_.clear();
    clocks_.memory_edges_until(now, [this](ClockDomain d, uint64_t cycle) {
      edges_.push_back(MemoryEdge{MemoryClock(uint8_t(d)), cycle});
    });
    // Phase B: the memory-side units and the clusters, on the schedule's threads.
    engine.run_cycle(now);
    // Phase C (leader): retirements close kernels.
    views_changed = false;
    for (const auto& cluster : clusters_) views_changed |= cluster->take_views_changed();
    dispatcher.retire(now, views_changed);
    if (dispatcher.finished()) {
      ++now;
      break;
    }
    // Watchdog: a kernel that runs must make progress, in simulated and in
    // skipped cycles alike (jumps stop at each look).
    if (watchdog.due(now)) {
      const uint64_t issued = dispatcher.warp_insts_issued();
      if (const uint64_t stalled = watchdog.look(now, issued + dispatcher.blocks_moved(), dispatcher.nothing_running())) {
        std::vector<std::string> stuck;
        for (const auto& sm : sms_)
          for (std::string& line : sm->describe_stuck_warps()) stuck.push_back(std::move(line));
        throw SimulationError(Watchdog::message(stalled, dispatcher.describe_running(), stuck));
      }
      if (options.progress && now + 1 >= next_progress) {
        next_progress += kProgressEvery;
        const uint32_t kernels = dispatcher.kernels_to_run();
        options.progress(std::min(dispatcher.kernels_finished(), kernels - 1), kernels, now + 1 - run_start, issued);
      }
    }
    if (budget && now + 1 - run_start >= budget) {
      truncated = true;
      ++now;
      break;
    }
    // Fast-forward: when nothing can change before cycle `until`, the cycles
    // before it would only repeat this one; account for them and jump.
    if (fast_forward) {
      uint64_t until = engine.quiet_until(now);
      if (until > now + 1) until = std::min(until, memory_quiet_until(now));
      if (until > now + 1) until = std::min(until, dispatcher.next_change(now));
      if (budget) until = std::min(until, run_start + budget - 1);
      until = std::min(until, watchdog.next_look() - 1);
      if (until > now + 1) {
        skip_cycles(now, until);
        engine.skip(until - now - 1);
        now = until - 1;
      }
    }
  }
  engine.finish();
  if (truncated) dispatcher.truncate(now);
  clock_ = now;
  return dispatcher.take_results();
}

}  // namespace lockstep
