#include "parallel/gpu.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "parallel/worker_team.h"

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
  partition_clusters(1, Partition::kContiguous, nullptr);
}

Gpu::~Gpu() = default;

const char* schedule_name(Schedule s) {
  switch (s) {
    case Schedule::kSeq: return "seq";
    case Schedule::kPara1: return "para1";
    case Schedule::kPara2: return "para2";
  }
  return "?";
}

const char* partition_name(Partition p) {
  switch (p) {
    case Partition::kContiguous: return "contiguous";
    case Partition::kRoundRobin: return "round-robin";
    case Partition::kBalanced: return "balanced";
  }
  return "?";
}

Schedule parse_schedule(const std::string& text) {
  for (Schedule s : {Schedule::kSeq, Schedule::kPara1, Schedule::kPara2})
    if (text == schedule_name(s)) return s;
  throw std::invalid_argument("--schedule " + text + ": expected seq, para1 or para2");
}

Partition parse_partition(const std::string& text) {
  for (Partition p : {Partition::kContiguous, Partition::kRoundRobin, Partition::kBalanced})
    if (text == partition_name(p)) return p;
  throw std::invalid_argument("--partition " + text + ": expected contiguous, round-robin or balanced");
}

void Gpu::partition_clusters(uint32_t sm_threads, Partition partition, const std::vector<double>* cost) {
  const uint32_t clusters = spec_.clusters();
  sm_threads = std::max(1u, std::min(sm_threads, clusters));
  clusters_of_.assign(sm_threads, {});
  if (partition == Partition::kRoundRobin) {
    for (uint32_t c = 0; c < clusters; ++c) clusters_of_[c % sm_threads].push_back(c);
    return;
  }
  // Contiguous ranges; with a cost per thread (balanced), range sizes follow
  // the share of the cycle each thread should take.
  std::vector<double> weight(sm_threads, 1.0);
  if (cost) weight = *cost;
  double total = 0;
  for (double w : weight) total += w;
  uint32_t next = 0;
  double acc = 0;
  for (uint32_t t = 0; t < sm_threads; ++t) {
    acc += weight[t];
    uint32_t end = t + 1 == sm_threads ? clusters : uint32_t(double(clusters) * acc / total + 0.5);
    end = std::clamp(end, next + 1, clusters - (sm_threads - 1 - t));  // at least one cluster each
    for (; next < end; ++next) clusters_of_[t].push_back(next);
  }
}

void Gpu::run_share(uint32_t t, uint64_t now) {
  const auto start = measure_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  if (memory_ && t == memory_thread_) {
    run_memory_edges(now);
    if (measure_)
      memory_ns_ += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  }
  if (t < clusters_of_.size()) {
    const uint32_t per_cluster = spec_.sms_per_cluster, nsms = uint32_t(sms_.size());
    for (uint32_t c : clusters_of_[t]) {
      const uint32_t first = c * per_cluster;
      for (uint32_t s = first; s < std::min(first + per_cluster, nsms); ++s) {
        if (unlatched_coupling_ && (sms_[(s + 1) % nsms]->stats().warp_insts & 1)) continue;
        sms_[s]->tick(now);
      }
    }
  }
  if (measure_)
    share_ns_[t] += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

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
  const uint32_t nsms = uint32_t(sms_.size());

  // Threads: seq runs everything on the caller. para1: every thread owns
  // clusters, the leader also runs the memory side. para2: the last thread
  // runs the memory side only (with one thread, para2 is para1).
  const uint32_t threads = options.schedule == Schedule::kSeq ? 1 : std::max(1u, options.threads);
  const bool memory_alone = options.schedule == Schedule::kPara2 && threads > 1 && memory_;
  const uint32_t sm_threads = std::min(threads - (memory_alone ? 1 : 0), spec_.clusters());
  memory_thread_ = memory_alone ? threads - 1 : 0;
  partition_clusters(sm_threads, options.partition, nullptr);
  engine_ = EngineReport{};
  engine_.threads = threads;
  share_ns_.assign(threads, 0);
  memory_ns_ = 0;
  measure_ = options.partition == Partition::kBalanced && threads > 1;
  unlatched_coupling_ = options.unlatched_coupling_for_tests;
  uint64_t now = clock_;
  // The team of the threaded schedules, on the chosen semaphore kind.
  using SpinTeam = WorkerTeam<SpinFutexSemaphore>;
  using StdTeam = WorkerTeam<StdSemaphore>;
  std::unique_ptr<SpinTeam> spin_team;
  std::unique_ptr<StdTeam> std_team;
  const bool oversubscribed = handshake_oversubscribed(threads);
  auto share = [this, &now](uint32_t t) { run_share(t, now); };
  if (threads > 1 && options.handshake == HandshakeKind::kSpinFutex)
    spin_team = std::make_unique<SpinTeam>(threads - 1, oversubscribed, share);
  else if (threads > 1)
    std_team = std::make_unique<StdTeam>(threads - 1, oversubscribed, share);
  const bool team = threads > 1;
  // Thresholds of the adaptive schedule (wall time of one cycle's phase B).
  constexpr auto kSerialBelow = std::chrono::microseconds(6);
  constexpr auto kParallelAbove = std::chrono::microseconds(12);
  bool serial_stretch = false;
  auto rebalance = [&]() {
    // Cost of a cluster on each thread, then ranges that equalise the threads' time.
    double sm_ns = 0;
    for (uint32_t t = 0; t < clusters_of_.size(); ++t) sm_ns += double(share_ns_[t]) - (t == memory_thread_ ? double(memory_ns_) : 0.0);
    const double per_thread = (sm_ns + (memory_alone ? 0.0 : double(memory_ns_))) / double(clusters_of_.size());
    std::vector<double> want(clusters_of_.size(), per_thread);
    if (!memory_alone) want[0] = std::max(per_thread - double(memory_ns_), per_thread * 0.05);
    partition_clusters(uint32_t(clusters_of_.size()), Partition::kBalanced, &want);
    std::fill(share_ns_.begin(), share_ns_.end(), 0);
    memory_ns_ = 0;
    ++engine_.rebalances;
  };
  uint32_t last_dispatch = nsms - 1;
  uint64_t issued_before = 0, last_progress_cycle = clock_;
  const uint64_t run_start = clock_;
  bool truncated = false;

  for (;; ++now) {
    // Phase A (leader): launches, block dispatch.
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
    const uint32_t dispatch_start = last_dispatch + 1;
    for (uint32_t i = 0; i < nsms; ++i) {
      const uint32_t s = (dispatch_start + i) % nsms;
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
    if (options.shuffle_seed)
      for (auto& list : clusters_of_) std::shuffle(list.begin(), list.end(), rng);
    // Phase B: the memory side and the clusters, on the schedule's threads.
    // Adaptive: a cycle whose work is too small to pay for the handshake
    // runs on the leader alone (every share in turn: the same result), until
    // a cycle's work grows again.
    if (team && !serial_stretch) {
      const auto t0 = std::chrono::steady_clock::now();
      if (spin_team) spin_team->run_cycle();
      else std_team->run_cycle();
      ++engine_.parallel_cycles;
      if (measure_ && (engine_.parallel_cycles & 4095) == 0) rebalance();
      serial_stretch = std::chrono::steady_clock::now() - t0 < kSerialBelow;
    } else {
      const auto t0 = team ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
      for (uint32_t t = 0; t < threads; ++t) run_share(t, now);
      ++engine_.serial_cycles;
      if (team) serial_stretch = std::chrono::steady_clock::now() - t0 < kParallelAbove;
    }
    // Phase C (leader): publish the ports, close kernels.
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
  if (spin_team) engine_.handshake_wait_ns = spin_team->leader_wait_ns();
  if (std_team) engine_.handshake_wait_ns = std_team->leader_wait_ns();
  spin_team.reset();
  std_team.reset();
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
