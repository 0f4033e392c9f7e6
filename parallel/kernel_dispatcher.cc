#include "parallel/kernel_dispatcher.h"

#include <algorithm>
#include <stdexcept>

#include "frontend/trace/trace_error.h"
#include "parallel/run_plan.h"

namespace lockstep {

void KernelDispatcher::RunningKernel::pull(std::vector<std::unique_ptr<BlockTrace>>& spares) {
  if (!next && !spares.empty()) {
    next = std::move(spares.back());
    spares.pop_back();
  }
  if (!next) next = std::make_unique<BlockTrace>();
  if (!cursor->next(*next)) {
    next.reset();
    return;
  }
  program->extend(*table);
}

KernelDispatcher::KernelDispatcher(const GpuSpec& spec, std::vector<std::unique_ptr<SmModel>>& sms,
                                   const std::vector<SmView>& views, MemoryModel& memory, TraceSource& trace,
                                   const std::vector<KernelJob>& jobs, bool memcpy_warms_l2,
                                   CacheControl cache_control, bool per_unit_stats, bool drop_retirements_for_tests)
    : spec_(spec),
      sms_(sms),
      views_(views),
      memory_(memory),
      trace_(trace),
      manifest_(trace.manifest()),
      jobs_(jobs),
      memcpy_warms_l2_(memcpy_warms_l2),
      cache_control_(cache_control),
      per_unit_stats_(per_unit_stats),
      drop_retirements_(drop_retirements_for_tests),
      result_of_job_(jobs.size(), SIZE_MAX),
      last_dispatch_(uint32_t(sms.size()) - 1),
      sm_free_at_(sms.size(), 0) {}

KernelDispatcher::~KernelDispatcher() = default;

Occupancy KernelDispatcher::occupancy_of(const KernelInfo& info) const {
  return compute_occupancy(spec_.sm, KernelShape{info.threads_per_block(), info.nregs, info.shmem_bytes});
}

bool KernelDispatcher::may_launch() const {
  if (next_job_ >= jobs_.size()) return false;
  if (cache_control_ == CacheControl::kAll) return running_.empty() && memory_.idle();
  if (running_.empty()) return true;
  if (!spec_.concurrent_kernels || running_.size() >= kStatSlots) return false;
  const uint64_t stream = manifest_.kernels[jobs_[next_job_].kernel_index].cuda_stream_id;
  for (const RunningKernel& rk : running_)
    if (rk.next || rk.stream == stream) return false;
  return true;
}

uint64_t KernelDispatcher::launch_due() const {
  if (!may_launch()) return UINT64_MAX;
  if (next_job_ == 0 || ready_since_ == kNotReady) return 0;
  return ready_since_ + spec_.kernel_launch_latency;
}

void KernelDispatcher::launch_and_dispatch(uint64_t now, bool views_changed) {
  if (may_launch()) {
    if (ready_since_ == kNotReady) ready_since_ = now;
    if (next_job_ == 0 || now >= ready_since_ + spec_.kernel_launch_latency) {
      launch(now);
      launched_ = true;
      ready_since_ = kNotReady;
    }
  } else {
    ready_since_ = kNotReady;
  }
  const bool blocks_waiting =
      std::any_of(running_.begin(), running_.end(), [](const RunningKernel& rk) { return bool(rk.next); });
  if (blocks_waiting && (views_changed || launched_ || now >= rescan_at_)) dispatch(now);
  launched_ = false;
}

void KernelDispatcher::launch(uint64_t now) {
  const KernelJob& job = jobs_[next_job_];
  const KernelInfo& info = manifest_.kernels.at(job.kernel_index);
  RunningKernel rk;
  rk.job = next_job_;
  rk.stream = info.cuda_stream_id;
  rk.program = job.program;
  rk.launch.kernel_index = job.kernel_index;
  rk.launch.program = job.program;
  rk.launch.warps_per_block = info.warps_per_block();
  // The lowest statistics slot no running kernel holds (at most kStatSlots run at once).
  uint32_t used = 0;
  for (const RunningKernel& other : running_) used |= 1u << other.stat_slot;
  while (used >> rk.stat_slot & 1u) ++rk.stat_slot;
  rk.launch.stat_slot = rk.stat_slot;
  rk.first_block_at = now + spec_.launch.kernel_start_cycles;
  if (memcpy_warms_l2_)
    for (const MemcpyHtoD& copy : job.copies_before) memory_.copy_to_device(copy.address, copy.bytes);
  if (cache_control_ == CacheControl::kAll) memory_.invalidate_caches();
  rk.launch.occupancy = launch_occupancy(spec_, info);
  if (prefetched_job_ == next_job_) rk.cursor = std::move(prefetched_);
  else if (!(rk.cursor = trace_.open_blocks_ahead(job.kernel_index, first_wave(rk.launch.occupancy),
                                                   BlockParts::kFirstSegment)))
    rk.cursor = trace_.open_blocks(job.kernel_index);
  rk.launch.segments = rk.cursor->segments();
  prefetched_.reset();
  prefetched_job_ = SIZE_MAX;
  rk.table = &trace_.static_table(job.kernel_index);
  rk.pull(spare_blocks_);
  KernelResult r;
  r.kernel_index = job.kernel_index;
  r.start_cycle = now;
  r.occupancy = rk.launch.occupancy;
  if (per_unit_stats_) r.sm_stats.resize(sms_.size());
  result_of_job_[next_job_] = results_.size();
  results_.push_back(std::move(r));
  running_.push_back(std::move(rk));
  ++next_job_;
  if (!running_.back().next) open_next_job_ahead();
}

void KernelDispatcher::open_next_job_ahead() {
  if (next_job_ >= jobs_.size() || prefetched_job_ == next_job_) return;
  // One cursor per kernel at a time: the next job's kernel may not be running.
  if (std::any_of(running_.begin(), running_.end(), [&](const RunningKernel& other) {
        return other.launch.kernel_index == jobs_[next_job_].kernel_index;
      }))
    return;
  try {
    const Occupancy occupancy = occupancy_of(manifest_.kernels.at(jobs_[next_job_].kernel_index));
    if ((prefetched_ = trace_.open_blocks_ahead(jobs_[next_job_].kernel_index, first_wave(occupancy),
                                                BlockParts::kFirstSegment)))
      prefetched_job_ = next_job_;
  } catch (const std::invalid_argument&) {
    // It cannot run: its launch says so.
  }
}

void KernelDispatcher::dispatch(uint64_t now) {
  // At most one block per SM per cycle; older kernels first. A block the
  // launch costs hold back makes the scan run again when they let it go.
  rescan_at_ = UINT64_MAX;
  if (gpu_free_at_ > now) {
    rescan_at_ = gpu_free_at_;
    return;
  }
  const uint32_t sm_interval = std::max<uint32_t>(spec_.launch.sm_block_interval_cycles, 1);
  const uint32_t gpu_interval = spec_.launch.block_interval_cycles;
  const uint32_t nsms = uint32_t(sms_.size()), start = last_dispatch_ + 1;
  for (uint32_t i = 0; i < nsms; ++i) {
    const uint32_t s = (start + i) % nsms;
    SmModel& sm = *sms_[s];
    for (RunningKernel& rk : running_) {
      if (!rk.next || !SmModel::can_accept(views_[s].residency, rk.launch, spec_.sm)) continue;
      if (const uint64_t slot = block_slot(rk, s, now); slot > now) {
        rescan_at_ = std::min(rescan_at_, slot);
        break;  // a younger kernel's first block is no earlier
      }
      if (sm.current_kernel() != rk.launch.kernel_index) collect_stats(s);
      sm.take_spent_blocks(spare_blocks_);
      sm.offer(rk.launch, std::move(rk.next), now);  // accepted in its tick, on its thread
      if (offer_marks_) offer_marks_->mark(0, s);
      ++rk.dispatched;
      ++blocks_moved_;
      rk.pull(spare_blocks_);
      if (!rk.next) open_next_job_ahead();
      last_dispatch_ = s;
      sm_free_at_[s] = now + sm_interval;
      if (gpu_interval) {
        // One block per GPU-wide interval: the scan ends here.
        gpu_free_at_ = now + gpu_interval;
        rescan_at_ = gpu_free_at_;
        return;
      }
      break;
    }
  }
}

void KernelDispatcher::retire(uint64_t now, bool views_changed) {
  // A later segment of a block that could not be read (BlockSegments): the
  // SM that asked ran its warps to the end of what it had.
  for (const RunningKernel& rk : running_)
    if (rk.launch.segments && rk.launch.segments->failed()) throw TraceError(rk.launch.segments->failure());
  // Retirements, in SM order, close kernels.
  for (size_t s = 0; views_changed && s < views_.size(); ++s) {
    const SmView& view = views_[s];
    if (!view.retired || drop_retirements_) continue;
    for (RunningKernel& rk : running_)
      if (rk.launch.kernel_index == view.residency.kernel) rk.retired += view.retired;
    blocks_moved_ += view.retired;
  }
  for (size_t i = 0; i < running_.size();) {
    RunningKernel& rk = running_[i];
    if (!rk.blocks_done()) {
      ++i;
      continue;
    }
    // The drain starts with the cycle after the last retirement (none for a kernel without blocks).
    if (rk.ends_at == kNotDrained) rk.ends_at = rk.dispatched ? now + spec_.launch.kernel_drain_cycles : now;
    if (now < rk.ends_at) {
      ++i;
      continue;
    }
    KernelResult& r = results_[result_of_job_[rk.job]];
    r.cycles = rk.ends_at + 1 - r.start_cycle;
    r.complete = true;
    if (rk.dispatched == 0) r.cycles = 0;  // a kernel without blocks
    collect_memory_stats(r, rk.stat_slot);
    running_.erase(running_.begin() + long(i));
  }
  // A waiting block that does not fit even an empty SM can never run. (Every
  // SM may also have just emptied with blocks still waiting: the next
  // dispatch places them.)
  bool any_busy = false;  // blocks dispatched and not retired
  for (const RunningKernel& rk : running_) any_busy |= rk.dispatched > rk.retired;
  for (const RunningKernel& rk : running_)
    if (!any_busy && rk.next && !SmModel::can_accept(SmModel::Residency{}, rk.launch, spec_.sm))
      throw SimulationError("kernel " + std::to_string(manifest_.kernels[rk.launch.kernel_index].kernel_id) +
                            ": no SM can take a block of " + std::to_string(rk.launch.warps_per_block) + " warps");
}

void KernelDispatcher::truncate(uint64_t end) {
  for (const RunningKernel& rk : running_) {
    KernelResult& r = results_[result_of_job_[rk.job]];
    r.truncated = true;
    r.cycles = end - r.start_cycle;
    collect_memory_stats(r, rk.stat_slot);
  }
}

uint64_t KernelDispatcher::warp_insts_issued() const {
  uint64_t issued = 0;
  for (const auto& sm : sms_) issued += sm->stats().warp_insts;
  for (const KernelResult& r : results_) issued += r.stats.warp_insts;
  return issued;
}

uint64_t KernelDispatcher::next_change(uint64_t now) const {
  uint64_t next = std::max(now + 1, launch_due());
  for (const RunningKernel& rk : running_) {
    if (rk.ends_at != kNotDrained) next = std::min(next, std::max(now + 1, rk.ends_at));
    if (!rk.next) continue;
    for (uint32_t s = 0; s < views_.size(); ++s)
      if (SmModel::can_accept(views_[s].residency, rk.launch, spec_.sm)) {
        next = std::min(next, block_slot(rk, s, now + 1));
        if (next == now + 1) return next;
      }
  }
  return next;
}

std::string KernelDispatcher::describe_running() const {
  std::string out;
  for (const RunningKernel& rk : running_)
    out += " kernel " + std::to_string(manifest_.kernels[rk.launch.kernel_index].kernel_id) + " has " +
           std::to_string(rk.dispatched) + " blocks dispatched, " + std::to_string(rk.retired) + " retired" +
           (rk.next ? ", more waiting;" : ", none waiting;");
  return out;
}

void KernelDispatcher::collect_stats(uint32_t s) {
  SmModel& sm = *sms_[s];
  const uint32_t k = sm.current_kernel();
  for (KernelResult& r : results_)
    if (r.kernel_index == k) {
      const SmStats taken = sm.take_stats();
      r.stats += taken;
      if (per_unit_stats_) r.sm_stats[s] += taken;
      return;
    }
}

void KernelDispatcher::collect_memory_stats(KernelResult& r, uint32_t slot) {
  if (!per_unit_stats_) {
    r.memory = memory_.take_stats(slot);
    return;
  }
  r.memory_units = memory_.take_instance_stats(slot);
  r.memory = r.memory_units.total();
}

std::vector<KernelResult> KernelDispatcher::take_results() {
  for (uint32_t s = 0; s < sms_.size(); ++s) collect_stats(s);
  return std::move(results_);
}

}  // namespace lockstep
