#include "parallel/gpu.h"

#include <algorithm>
#include <numeric>

namespace lockstep {

Gpu::Gpu(const GpuSpec& spec) : spec_(spec) {
  for (uint32_t i = 0; i < spec.sms; ++i) sms_.push_back(std::make_unique<Sm>(i, spec.sm));
  cluster_order_.resize(spec.clusters());
  std::iota(cluster_order_.begin(), cluster_order_.end(), 0u);
}

KernelResult Gpu::run_kernel(TraceSource& trace, uint32_t kernel, KernelProgram& program,
                             const KernelRunOptions& options) {
  const KernelInfo& info = trace.manifest().kernels.at(kernel);
  KernelResult result;
  result.kernel_index = kernel;
  result.sms = uint32_t(sms_.size());
  KernelShape shape{info.threads_per_block(), info.nregs, info.shmem_bytes};
  try {
    result.occupancy = compute_occupancy(spec_.sm, shape);
  } catch (const std::invalid_argument& e) {
    throw SimulationError("kernel " + std::to_string(info.kernel_id) + " (" + info.name.substr(0, 60) +
                          ") cannot run on " + spec_.name + ": " + e.what());
  }
  KernelLaunch launch;
  launch.kernel_index = kernel;
  launch.program = &program;
  launch.occupancy = result.occupancy;
  launch.warps_per_block = info.warps_per_block();

  auto cursor = trace.open_blocks(kernel);
  const StaticTable& table = trace.static_table(kernel);
  std::unique_ptr<BlockTrace> next = std::make_unique<BlockTrace>();
  auto pull = [&] {
    if (!next) next = std::make_unique<BlockTrace>();
    if (!cursor->next(*next)) {
      next.reset();
      return;
    }
    program.extend(table);
  };
  pull();

  std::mt19937_64 rng(options.shuffle_seed.value_or(0));
  const uint32_t clusters = uint32_t(cluster_order_.size());
  const uint32_t per_cluster = spec_.sms_per_cluster;
  uint32_t last_dispatch = uint32_t(sms_.size()) - 1;
  // Time runs on across kernels: SM state (pipelines, caches) holds absolute cycles.
  const uint64_t start = clock_;
  uint64_t issued_before = 0, last_progress_cycle = start;
  uint64_t now = start;
  for (;; ++now) {
    // Dispatch: at most one block per SM per cycle, in a fixed rotating order.
    for (uint32_t i = 0; next && i < sms_.size(); ++i) {
      const uint32_t s = (last_dispatch + 1 + i) % uint32_t(sms_.size());
      if (!sms_[s]->can_accept(launch)) continue;
      sms_[s]->accept(launch, std::move(next), now);
      last_dispatch = s;
      pull();
    }
    if (options.shuffle_seed) std::shuffle(cluster_order_.begin(), cluster_order_.end(), rng);
    bool any_busy = false;
    for (uint32_t c = 0; c < clusters; ++c) {
      const uint32_t first = cluster_order_[c] * per_cluster;
      for (uint32_t s = first; s < std::min<uint32_t>(first + per_cluster, uint32_t(sms_.size())); ++s)
        any_busy |= sms_[s]->tick(now);
    }
    if (!any_busy && !next) break;
    if (!any_busy && next)
      throw SimulationError("kernel " + std::to_string(info.kernel_id) + ": no SM can take a block of " +
                            std::to_string(launch.warps_per_block) + " warps");

    // Watchdog: warp instructions must keep issuing.
    if (((now + 1 - start) & 1023) == 0) {
      uint64_t issued = 0;
      for (const auto& sm : sms_) issued += sm->stats().warp_insts;
      if (issued != issued_before) {
        issued_before = issued;
        last_progress_cycle = now;
      } else if (spec_.watchdog_cycles && now - last_progress_cycle > spec_.watchdog_cycles) {
        std::string msg = "kernel " + std::to_string(info.kernel_id) + ": no warp issued for " +
                          std::to_string(now - last_progress_cycle) + " cycles (watchdog); stuck warps:";
        int shown = 0;
        for (const auto& sm : sms_)
          for (const std::string& line : sm->describe_stuck_warps())
            if (shown++ < 8) msg += "\n  " + line;
        if (shown > 8) msg += "\n  ... and " + std::to_string(shown - 8) + " more";
        throw SimulationError(msg);
      }
      if (options.progress && ((now + 1 - start) % options.progress_every) == 0) options.progress(now + 1 - start, issued);
    }
    if (options.cycle_budget && now + 1 - start >= options.cycle_budget) {
      result.truncated = true;
      ++now;
      break;
    }
  }
  result.cycles = now - start;
  clock_ = now;
  for (const auto& sm : sms_) result.stats += sm->take_stats();
  return result;
}

}  // namespace lockstep
