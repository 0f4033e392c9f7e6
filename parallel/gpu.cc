#include "parallel/gpu.h"

#include <algorithm>
#include <numeric>

namespace lockstep {

Gpu::Gpu(const GpuSpec& spec, bool perfect_memory) : spec_(spec), clocks_(spec.clocks) {
  for (uint32_t i = 0; i < spec.sms; ++i) sms_.push_back(std::make_unique<Sm>(i, spec.sm));
  if (!perfect_memory) {
    // dram.extra_latency is in core cycles; the return path counts DRAM cycles.
    const uint32_t extra = uint32_t(clocks_.cycles_in(ClockDomain::kDram, spec.memory.dram.extra_latency));
    memory_ = std::make_unique<MemorySystem>(spec.memory, spec.sms, spec.sms_per_cluster, extra);
    for (uint32_t i = 0; i < spec.sms; ++i)
      sms_[i]->attach_memory(spec.memory.l1d, &memory_->request_port(i), &memory_->reply_port(i));
  }
  cluster_order_.resize(spec.clusters());
  std::iota(cluster_order_.begin(), cluster_order_.end(), 0u);
}

Gpu::~Gpu() = default;

void Gpu::run_memory_edges(uint64_t now) {
  clocks_.memory_edges_until(now, [this](ClockDomain d, uint64_t cycle) {
    switch (d) {
      case ClockDomain::kIcnt: memory_->icnt_cycle(cycle); break;
      case ClockDomain::kL2: memory_->l2_cycle(cycle); break;
      case ClockDomain::kDram: memory_->dram_cycle(cycle); break;
      default: break;
    }
  });
}

namespace {

// A kernel between its launch and its last block's retirement.
struct RunningKernel {
  size_t job = 0;
  KernelLaunch launch;
  uint32_t stream = 0;
  std::unique_ptr<BlockCursor> cursor;
  const StaticTable* table = nullptr;
  KernelProgram* program = nullptr;
  std::unique_ptr<BlockTrace> next;  // the next block to dispatch; null once all are out
  uint64_t dispatched = 0;
  uint64_t retired = 0;
  uint8_t stat_slot = 0;

  void pull() {
    if (!next) next = std::make_unique<BlockTrace>();
    if (!cursor->next(*next)) {
      next.reset();
      return;
    }
    program->extend(*table);
  }
  bool done() const { return !next && retired == dispatched; }
};

}  // namespace

std::vector<KernelResult> Gpu::run(TraceSource& trace, const std::vector<KernelJob>& jobs, const GpuRunOptions& options) {
  const TraceManifest& m = trace.manifest();
  std::vector<KernelResult> results;
  std::vector<RunningKernel> running;  // in launch order
  std::vector<size_t> result_of_job(jobs.size(), SIZE_MAX);
  if (jobs.empty()) return results;
  size_t next_job = 0;
  // The cycle since which the next job could start (it does kernel_launch_latency later).
  std::optional<uint64_t> ready_since;

  auto launch = [&](uint64_t now) {
    const KernelJob& job = jobs[next_job];
    const KernelInfo& info = m.kernels.at(job.kernel_index);
    RunningKernel rk;
    rk.job = next_job;
    rk.stream = info.cuda_stream_id;
    rk.program = job.program;
    rk.launch.kernel_index = job.kernel_index;
    rk.launch.program = job.program;
    rk.launch.warps_per_block = info.warps_per_block();
    // The lowest statistics slot no running kernel holds (at most kStatSlots run at once).
    uint32_t used = 0;
    for (const RunningKernel& other : running) used |= 1u << other.stat_slot;
    while (used >> rk.stat_slot & 1u) ++rk.stat_slot;
    rk.launch.stat_slot = rk.stat_slot;
    if (memory_)
      for (const MemcpyHtoD& copy : job.copies_before) memory_->copy_to_device(copy.address, copy.bytes);
    try {
      rk.launch.occupancy = compute_occupancy(spec_.sm, KernelShape{info.threads_per_block(), info.nregs, info.shmem_bytes});
    } catch (const std::invalid_argument& e) {
      throw SimulationError("kernel " + std::to_string(info.kernel_id) + " (" + info.name.substr(0, 60) +
                            ") cannot run on " + spec_.name + ": " + e.what());
    }
    rk.cursor = trace.open_blocks(job.kernel_index);
    rk.table = &trace.static_table(job.kernel_index);
    rk.pull();
    KernelResult r;
    r.kernel_index = job.kernel_index;
    r.start_cycle = now;
    r.occupancy = rk.launch.occupancy;
    result_of_job[next_job] = results.size();
    results.push_back(std::move(r));
    running.push_back(std::move(rk));
    ++next_job;
  };
  // Whether the next job could start, given what is running.
  auto may_launch = [&]() {
    if (next_job >= jobs.size()) return false;
    if (running.empty()) return true;
    if (!spec_.concurrent_kernels || running.size() >= kStatSlots) return false;
    const uint32_t stream = m.kernels[jobs[next_job].kernel_index].cuda_stream_id;
    for (const RunningKernel& rk : running)
      if (rk.next || rk.stream == stream) return false;
    return true;
  };
  // SM counters belong to the kernel the SM held while they were counted.
  auto collect = [&](Sm& sm) {
    const uint32_t k = sm.current_kernel();
    if (k == UINT32_MAX) return;
    for (size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].kernel_index == k && result_of_job[j] != SIZE_MAX) {
        results[result_of_job[j]].stats += sm.take_stats();
        return;
      }
  };

  std::mt19937_64 rng(options.shuffle_seed.value_or(0));
  const uint32_t clusters = uint32_t(cluster_order_.size());
  const uint32_t per_cluster = spec_.sms_per_cluster;
  const uint32_t nsms = uint32_t(sms_.size());
  uint32_t last_dispatch = nsms - 1;
  uint64_t issued_before = 0, last_progress_cycle = clock_;
  const uint64_t run_start = clock_;
  uint64_t now = clock_;
  bool truncated = false;

  for (;; ++now) {
    if (memory_) run_memory_edges(now);
    if (may_launch()) {
      if (!ready_since) ready_since = now;
      if (next_job == 0 || now >= *ready_since + spec_.kernel_launch_latency) {
        launch(now);
        ready_since.reset();
      }
    } else {
      ready_since.reset();
    }
    // Dispatch: at most one block per SM per cycle; older kernels first.
    for (uint32_t i = 0; i < nsms; ++i) {
      const uint32_t s = (last_dispatch + 1 + i) % nsms;
      Sm& sm = *sms_[s];
      for (RunningKernel& rk : running) {
        if (!rk.next || !sm.can_accept(rk.launch)) continue;
        if (sm.current_kernel() != rk.launch.kernel_index) collect(sm);
        sm.accept(rk.launch, std::move(rk.next), now);
        ++rk.dispatched;
        rk.pull();
        last_dispatch = s;
        break;
      }
    }
    if (options.shuffle_seed) std::shuffle(cluster_order_.begin(), cluster_order_.end(), rng);
    for (uint32_t c = 0; c < clusters; ++c) {
      const uint32_t first = cluster_order_[c] * per_cluster;
      for (uint32_t s = first; s < std::min(first + per_cluster, nsms); ++s) sms_[s]->tick(now);
    }
    if (memory_) memory_->commit_ports();
    // Retirements, in SM order, close kernels.
    for (uint32_t s = 0; s < nsms; ++s) {
      const uint32_t n = sms_[s]->take_retired_blocks();
      if (!n) continue;
      for (RunningKernel& rk : running)
        if (rk.launch.kernel_index == sms_[s]->current_kernel()) rk.retired += n;
    }
    for (size_t i = 0; i < running.size();) {
      RunningKernel& rk = running[i];
      if (!rk.done()) {
        ++i;
        continue;
      }
      KernelResult& r = results[result_of_job[rk.job]];
      r.cycles = now + 1 - r.start_cycle;
      if (rk.dispatched == 0 && !rk.next) r.cycles = 0;  // a kernel without blocks
      if (memory_) r.memory = memory_->take_stats(rk.stat_slot);
      running.erase(running.begin() + long(i));
    }
    if (running.empty() && next_job >= jobs.size()) {
      ++now;
      break;
    }
    if (!running.empty()) {
      bool any_busy = false;
      for (const auto& sm : sms_) any_busy |= sm->busy();
      bool any_waiting = false;
      for (const RunningKernel& rk : running) any_waiting |= bool(rk.next);
      if (!any_busy && any_waiting) {
        // Nothing resident, yet a block is waiting: it can never fit.
        const RunningKernel& rk = running.front();
        throw SimulationError("kernel " + std::to_string(m.kernels[rk.launch.kernel_index].kernel_id) +
                              ": no SM can take a block of " + std::to_string(rk.launch.warps_per_block) + " warps");
      }
    }

    // Watchdog: warp instructions must keep issuing while blocks are resident.
    if (((now + 1 - run_start) & 1023) == 0) {
      uint64_t issued = 0;
      bool any_busy = false;
      for (const auto& sm : sms_) {
        issued += sm->stats().warp_insts;
        any_busy |= sm->busy();
      }
      for (const KernelResult& r : results) issued += r.stats.warp_insts;
      if (issued != issued_before || !any_busy) {
        issued_before = issued;
        last_progress_cycle = now;
      } else if (spec_.watchdog_cycles && now - last_progress_cycle > spec_.watchdog_cycles) {
        std::string msg = "no warp issued for " + std::to_string(now - last_progress_cycle) +
                          " cycles (watchdog, gpu.watchdog_cycles); stuck warps:";
        int shown = 0;
        for (const auto& sm : sms_)
          for (const std::string& line : sm->describe_stuck_warps())
            if (shown++ < 8) msg += "\n  " + line;
        if (shown > 8) msg += "\n  ... and " + std::to_string(shown - 8) + " more";
        throw SimulationError(msg);
      }
      if (options.progress && ((now + 1 - run_start) & 65535) == 0) {
        uint32_t finished = uint32_t(results.size() - running.size());
        options.progress(finished, now + 1 - run_start, issued);
      }
    }
    if (options.cycle_budget && now + 1 - run_start >= options.cycle_budget) {
      truncated = true;
      ++now;
      break;
    }
  }
  for (const auto& sm : sms_) collect(*sm);
  if (truncated)
    for (const RunningKernel& rk : running) {
      KernelResult& r = results[result_of_job[rk.job]];
      r.truncated = true;
      r.cycles = now - r.start_cycle;
      if (memory_) r.memory = memory_->take_stats(rk.stat_slot);
    }
  clock_ = now;
  return results;
}

}  // namespace lockstep
