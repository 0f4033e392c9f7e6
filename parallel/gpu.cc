#include "parallel/gpu.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "parallel/longest_first.h"
#include "parallel/worker_team.h"

namespace lockstep {

Gpu::Gpu(const GpuSpec& spec, bool perfect_memory) : spec_(spec), clocks_(spec.clocks) {
  for (uint32_t i = 0; i < spec.sms; ++i) sms_.push_back(std::make_unique<Sm>(i, spec.sm));
  if (!perfect_memory) {
    MemoryTiming timing;
    // dram.extra_latency is in core cycles; the return path counts DRAM cycles.
    timing.dram_extra_cycles = uint32_t(clocks_.cycles_in(ClockDomain::kDram, spec.memory.dram.extra_latency));
    timing.icnt_edges_per_core_cycle = clocks_.max_edges_per_core_cycle(ClockDomain::kIcnt);
    timing.l2_edges_per_core_cycle = clocks_.max_edges_per_core_cycle(ClockDomain::kL2);
    memory_ = std::make_unique<MemorySystem>(spec.memory, spec.sms, spec.sms_per_cluster, timing);
    for (uint32_t i = 0; i < spec.sms; ++i)
      sms_[i]->attach_memory(spec.memory.l1d, &memory_->request_port(i), &memory_->reply_port(i));
    // Room for every edge of a core cycle: no allocation in the cycle loop.
    edges_.reserve(size_t(clocks_.max_edges_per_core_cycle(ClockDomain::kIcnt)) +
                   clocks_.max_edges_per_core_cycle(ClockDomain::kL2) +
                   clocks_.max_edges_per_core_cycle(ClockDomain::kDram) + 3);
  }
  assign_work(1, Schedule::kSeq, Partition::kContiguous, nullptr);
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

void Gpu::assign_work(uint32_t threads, Schedule schedule, Partition partition, const std::vector<double>* cost) {
  const uint32_t clusters = spec_.clusters(), units = memory_ ? memory_->units() : 0;
  threads = std::max(threads, 1u);
  shares_.assign(threads, {});
  engine_.memory_threads = 0;
  if (threads == 1) {
    for (uint32_t c = 0; c < clusters; ++c) shares_[0].clusters.push_back(c);
    for (uint32_t u = 0; u < units; ++u) shares_[0].units.push_back(u);
    return;
  }
  // Longest first, each to the least loaded of threads [first, first + n).
  std::vector<double> load(threads, 0.0);
  auto longest_first = [&](const std::vector<uint32_t>& items, uint32_t first, uint32_t n) {
    // Items: clusters c < clusters, units as clusters + u.
    const std::vector<uint32_t> owner = assign_longest_first(*cost, items, load, first, n);
    for (size_t k = 0; k < items.size(); ++k) {
      if (items[k] < clusters) shares_[owner[k]].clusters.push_back(items[k]);
      else shares_[owner[k]].units.push_back(items[k] - clusters);
    }
    for (ThreadShare& share : shares_) {
      std::sort(share.clusters.begin(), share.clusters.end());
      std::sort(share.units.begin(), share.units.end());
    }
  };
  std::vector<uint32_t> cluster_items(clusters), unit_items(units);
  std::iota(cluster_items.begin(), cluster_items.end(), 0u);
  std::iota(unit_items.begin(), unit_items.end(), clusters);
  const bool measured = partition == Partition::kBalanced && cost;

  // para2: the last `memory_threads` threads run the memory side alone.
  uint32_t memory_threads = 0;
  if (schedule == Schedule::kPara2 && units > 0) {
    memory_threads = std::max(1u, threads / 4);
    if (measured) {
      // The split that minimises the slower side; a unit cannot be shared.
      double sm = 0, mem = 0, largest = 0;
      for (uint32_t c = 0; c < clusters; ++c) sm += (*cost)[c];
      for (uint32_t u = 0; u < units; ++u) {
        mem += (*cost)[clusters + u];
        largest = std::max(largest, (*cost)[clusters + u]);
      }
      double best = -1;
      for (uint32_t m = 1; m < threads; ++m) {
        const double t = std::max(std::max(mem / m, largest), sm / (threads - m));
        if (best < 0 || t < best) {
          best = t;
          memory_threads = m;
        }
      }
    }
    memory_threads = std::min(memory_threads, threads - 1);
  }
  engine_.memory_threads = memory_threads;
  const uint32_t sm_threads = threads - memory_threads;
  if (measured) {
    if (memory_threads) {
      longest_first(cluster_items, 0, sm_threads);
      longest_first(unit_items, sm_threads, memory_threads);
    } else {
      // para1: while the whole memory side fits in one thread's share of the
      // cycle, it stays together on the leader (its units then exchange
      // packets within one core's cache); beyond that its units are pieces
      // like the clusters.
      double total = 0, mem = 0;
      for (size_t i = 0; i < cost->size(); ++i) total += (*cost)[i];
      for (uint32_t u = 0; u < units; ++u) mem += (*cost)[clusters + u];
      std::vector<uint32_t> all = cluster_items;
      if (mem <= total / threads) {
        for (uint32_t u = 0; u < units; ++u) shares_[0].units.push_back(u);
        load[0] = mem;
      } else {
        all.insert(all.end(), unit_items.begin(), unit_items.end());
      }
      longest_first(all, 0, threads);
    }
    return;
  }
  // Static partitions. Clusters: contiguous ranges or round robin over the SM threads.
  for (uint32_t c = 0; c < clusters; ++c) {
    const uint32_t t = partition == Partition::kRoundRobin ? c % sm_threads
                                                           : uint32_t(uint64_t(c) * sm_threads / clusters);
    shares_[t].clusters.push_back(c);
  }
  // Units: on the leader (para1), or dealt round robin over the memory threads (para2).
  for (uint32_t u = 0; u < units; ++u) shares_[memory_threads ? sm_threads + u % memory_threads : 0].units.push_back(u);
}

void Gpu::run_share(uint32_t t, uint64_t now) {
  // Thread t's own pieces first, from the front; then it helps the other
  // threads with the pieces they have not started, from the back of their
  // shares (ShareCursor: each piece runs exactly once, on whichever thread
  // claims it; pieces meet only at latched ports, so that changes nothing).
  PieceTally tally;
  tally.quiet_until = fast_forward_ ? UINT64_MAX : 0;
  const uint32_t threads = uint32_t(shares_.size());
  uint32_t first = 0, end = 0;
  while (share_cursors_[t].claim_front(first, end))
    for (uint32_t i = first; i < end; ++i) run_piece(t, i, now, tally);
  for (uint32_t k = 1; k < threads; ++k) {
    const uint32_t owner = (t + k) % threads;
    for (uint32_t i; share_cursors_[owner].claim_back(i);) {
      run_piece(owner, i, now, tally);
      if (team_running_) ++tallies_[t].helped;
    }
  }
  if (fast_forward_) tallies_[t].quiet_until = tally.quiet_until;
  // In serial cycles the leader runs every share: a change seen in one stays.
  if (tally.views_changed) tallies_[t].views_changed = true;
}

void Gpu::run_piece(uint32_t owner, uint32_t i, uint64_t now, PieceTally& tally) {
  const ThreadShare& share = shares_[owner];
  if (i < share.units.size()) run_unit(share.units[i]);
  else run_cluster(share.clusters[i - share.units.size()], now, tally);
}

Gpu::PieceClock::time_point Gpu::piece_start() const {
  return measure_ ? PieceClock::now() : PieceClock::time_point();
}

void Gpu::piece_end(size_t item, PieceClock::time_point start) {
  if (measure_)
    item_ns_[item] += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(PieceClock::now() - start).count());
}

void Gpu::run_unit(uint32_t u) {
  const auto start = piece_start();
  memory_->run_unit(u, edges_.data(), edges_.size());
  piece_end(spec_.clusters() + u, start);
}

void Gpu::run_cluster(uint32_t c, uint64_t now, PieceTally& tally) {
  const auto start = piece_start();
  const uint32_t nsms = uint32_t(sms_.size()), first = c * spec_.sms_per_cluster;
  const uint32_t last = std::min(first + spec_.sms_per_cluster, nsms);
  for (uint32_t s = first; s < last; ++s) {
    // The SM consumes its reply port: it takes in last cycle's replies
    // first and publishes its pops last, every cycle.
    if (memory_) memory_->reply_port(s).receive();
    if (!unlatched_coupling_ || sms_[s]->has_offered_block() || !(sms_[(s + 1) % nsms]->stats().warp_insts & 1))
      sms_[s]->tick(now);
    if (memory_) memory_->reply_port(s).publish_pops();
    SmView& view = sm_views_[s];
    const Sm::Residency residency = sms_[s]->residency();
    if (!(view.residency == residency)) {
      view.residency = residency;
      tally.views_changed = true;
    }
    // Every retirement is news to the leader, also one that leaves the view
    // as it was (the SM took a block and retired one in the same cycle, as
    // in the cycle before): phase C counts retirements only in cycles in
    // which a view changed.
    const uint32_t retired = sms_[s]->take_retired_blocks();
    if (retired || view.retired != retired) {
      view.retired = retired;
      tally.views_changed = true;
    }
  }
  // Fast-forward, while the SMs' state is in this thread's cache: the
  // earliest cycle one of them may do more than repeat this one.
  for (uint32_t s = first; s < last && tally.quiet_until > now + 1; ++s)
    tally.quiet_until = std::min(tally.quiet_until, sms_[s]->quiet_until(now));
  piece_end(c, start);
}

uint64_t Gpu::next_change(uint64_t now) const {
  // The SMs' part was computed by the threads during their shares; a reply
  // staged since makes the memory side non-idle below.
  uint64_t next = UINT64_MAX;
  for (const ThreadTally& tally : tallies_) next = std::min(next, tally.quiet_until);
  if (next <= now + 1) return now + 1;
  if (memory_) {
    const uint64_t dram_edges = clocks_.cycles(ClockDomain::kDram);
    if (dram_edges == 0 || !memory_->idle()) return now + 1;
    const uint64_t dram_event = memory_->next_event_when_idle(dram_edges - 1);
    if (dram_event != UINT64_MAX) next = std::min(next, clocks_.core_cycle_of(ClockDomain::kDram, dram_event));
  }
  return std::max(next, now + 1);
}

void Gpu::skip_cycles(uint64_t now, uint64_t until) {
  const uint64_t cycles = until - now - 1;
  for (const auto& sm : sms_) sm->skip_quiet_cycles(cycles);
  if (memory_) memory_->settle_ports();
  clocks_.skip_to(until);
  engine_.skipped_cycles += cycles;
}

namespace {

// A kernel between its launch and its last block's retirement.
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
  uint8_t stat_slot = 0;

  // Reads the next block into `next`, into storage from `spares` when there is some.
  void pull(std::vector<std::unique_ptr<BlockTrace>>& spares) {
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
  bool done() const { return !next && retired == dispatched; }
};

}  // namespace

void Gpu::collect_stats(Sm& sm) {
  const uint32_t k = sm.current_kernel();
  for (KernelResult& r : results_)
    if (r.kernel_index == k) {
      r.stats += sm.take_stats();
      return;
    }
}

std::vector<KernelResult> Gpu::results_before_error() {
  for (const auto& sm : sms_) collect_stats(*sm);
  return std::move(results_);
}

std::vector<KernelResult> Gpu::run(TraceSource& trace, const std::vector<KernelJob>& jobs, const GpuRunOptions& options) {
  const TraceManifest& m = trace.manifest();
  std::vector<KernelResult>& results = results_;  // kept when an error ends the run (results_before_error)
  results.clear();
  std::vector<RunningKernel> running;  // in launch order
  std::vector<std::unique_ptr<BlockTrace>> spare_blocks;  // storage of retired blocks' traces, to decode into
  std::vector<size_t> result_of_job(jobs.size(), SIZE_MAX);
  if (jobs.empty()) return results;
  size_t next_job = 0;
  // The cycle since which the next job could start (it does kernel_launch_latency later).
  constexpr uint64_t kNotReady = UINT64_MAX;
  uint64_t ready_since = kNotReady;
  // A kernel's occupancy on these SMs (std::invalid_argument when a block cannot fit).
  const auto occupancy_of = [&](const KernelInfo& info) {
    return compute_occupancy(spec_.sm, KernelShape{info.threads_per_block(), info.nregs, info.shmem_bytes});
  };
  // Blocks a kernel's launch dispatches at once: a full load of every SM.
  const auto first_wave = [&](const Occupancy& o) { return uint32_t(sms_.size()) * o.blocks_per_sm; };
  // The next job's blocks, opened when the job before it launched so that
  // they are decoded ahead, off the leader (TraceSource::open_blocks_ahead).
  std::unique_ptr<BlockCursor> prefetched;
  size_t prefetched_job = SIZE_MAX;

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
    if (memory_ && options.memcpy_warms_l2)
      for (const MemcpyHtoD& copy : job.copies_before) memory_->copy_to_device(copy.address, copy.bytes);
    try {
      rk.launch.occupancy = occupancy_of(info);
    } catch (const std::invalid_argument& e) {
      throw SimulationError("kernel " + std::to_string(info.kernel_id) + " (" + info.name.substr(0, 60) +
                            ") cannot run on " + spec_.name + ": " + e.what());
    }
    if (prefetched_job == next_job) rk.cursor = std::move(prefetched);
    else if (!(rk.cursor = trace.open_blocks_ahead(job.kernel_index, first_wave(rk.launch.occupancy))))
      rk.cursor = trace.open_blocks(job.kernel_index);
    prefetched.reset();
    prefetched_job = SIZE_MAX;
    rk.table = &trace.static_table(job.kernel_index);
    rk.pull(spare_blocks);
    KernelResult r;
    r.kernel_index = job.kernel_index;
    r.start_cycle = now;
    r.occupancy = rk.launch.occupancy;
    result_of_job[next_job] = results.size();
    results.push_back(std::move(r));
    running.push_back(std::move(rk));
    ++next_job;
    // One cursor per kernel at a time: the next job's kernel may not be running.
    if (next_job < jobs.size() && std::none_of(running.begin(), running.end(), [&](const RunningKernel& r) {
          return r.launch.kernel_index == jobs[next_job].kernel_index;
        })) {
      try {
        const Occupancy occupancy = occupancy_of(m.kernels.at(jobs[next_job].kernel_index));
        if ((prefetched = trace.open_blocks_ahead(jobs[next_job].kernel_index, first_wave(occupancy))))
          prefetched_job = next_job;
      } catch (const std::invalid_argument&) {
        // It cannot run: its launch says so.
      }
    }
  };
  // Whether the next job could start, given what is running.
  auto may_launch = [&]() {
    if (next_job >= jobs.size()) return false;
    if (running.empty()) return true;
    if (!spec_.concurrent_kernels || running.size() >= kStatSlots) return false;
    const uint64_t stream = m.kernels[jobs[next_job].kernel_index].cuda_stream_id;
    for (const RunningKernel& rk : running)
      if (rk.next || rk.stream == stream) return false;
    return true;
  };

  std::mt19937_64 rng(options.shuffle_seed.value_or(0));
  const uint32_t nsms = uint32_t(sms_.size());

  // Threads: seq runs everything on the caller; para1 and para2 share the
  // clusters and the memory-side units out (assign_work).
  using Clock = std::chrono::steady_clock;
  const auto wall_start = Clock::now();
  const uint32_t threads = options.schedule == Schedule::kSeq ? 1 : std::max(1u, options.threads);
  engine_ = EngineReport{};
  engine_.threads = threads;
  assign_work(threads, options.schedule, options.partition, nullptr);
  const uint32_t clusters = spec_.clusters(), units = memory_ ? memory_->units() : 0;
  const bool balanced = options.partition == Partition::kBalanced && threads > 1;
  item_ns_.assign(clusters + units, 0);
  measure_ = false;
  fast_forward_ = options.fast_forward;
  tallies_.assign(threads, ThreadTally{});
  share_cursors_ = std::make_unique<ShareCursor[]>(threads);
  sm_views_.assign(sms_.size(), SmView{});
  for (size_t s = 0; s < sms_.size(); ++s) sm_views_[s].residency = sms_[s]->residency();
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
    spin_team = std::make_unique<SpinTeam>(threads - 1, oversubscribed, share, options.pin_threads);
  else if (threads > 1)
    std_team = std::make_unique<StdTeam>(threads - 1, oversubscribed, share, options.pin_threads);
  const bool team = threads > 1;
  // Thresholds of the adaptive schedule (wall time of one cycle's phase B).
  const auto serial_below = options.serial_fallback.serial_below;
  const auto parallel_above = options.serial_fallback.parallel_above;
  bool serial_stretch = false;
  // Balanced: each piece of work is timed in the last measured_cycles of every
  // period simulated cycles, and the work is reassigned after them.
  const uint64_t period = std::max(options.rebalance_period, 4u), measured_cycles = std::min<uint64_t>(256, period / 4);
  uint64_t simulated = 0;  // cycles simulated (not skipped) in this run
  std::vector<uint64_t> profile_ns;  // with options.profile: the sums over the whole run
  if (options.profile) profile_ns.assign(clusters + units, 0);
  std::vector<double> smoothed_cost;  // balanced: measured costs, averaged with the earlier windows'
  auto rebalance = [&]() {
    if (smoothed_cost.empty()) smoothed_cost.assign(item_ns_.begin(), item_ns_.end());
    for (size_t i = 0; i < item_ns_.size(); ++i) smoothed_cost[i] = 0.5 * smoothed_cost[i] + 0.5 * double(item_ns_[i]);
    assign_work(threads, options.schedule, Partition::kBalanced, &smoothed_cost);
    ++engine_.rebalances;
  };
  uint32_t last_dispatch = nsms - 1;
  // Whether a view changed in the last phase B (ThreadTally) or a kernel
  // launched since the last dispatch: otherwise the views are what the last
  // dispatch and retirement scans saw, and they would find nothing new.
  bool views_changed = true, launched = true;
  // Progress, for the watchdog: a warp instruction issued, a block
  // dispatched or retired (blocks_moved), or no kernel running (between
  // kernels, a launch is due).
  uint64_t blocks_moved = 0, progress_before = 0, last_progress_cycle = clock_;
  const uint64_t run_start = clock_;
  // The watchdog and the progress report look every so many cycles (jumps
  // stop at each look, so it sees the same as without them).
  constexpr uint64_t kWatchdogEvery = 1024, kProgressEvery = 65536;
  uint64_t next_watchdog = run_start + kWatchdogEvery, next_progress = run_start + kProgressEvery;
  bool truncated = false;
  // The cycle at which the next job launches, if it may launch now (UINT64_MAX: not yet).
  auto launch_due = [&]() -> uint64_t {
    if (!may_launch()) return UINT64_MAX;
    if (next_job == 0 || ready_since == kNotReady) return 0;
    return ready_since + spec_.kernel_launch_latency;
  };

  for (;; ++now) {
    const auto cycle_start = options.profile ? Clock::now() : Clock::time_point();
    // Phase A (leader): launches, block dispatch, the memory side's edges.
    if (may_launch()) {
      if (ready_since == kNotReady) ready_since = now;
      if (next_job == 0 || now >= ready_since + spec_.kernel_launch_latency) {
        launch(now);
        launched = true;
        ready_since = kNotReady;
      }
    } else {
      ready_since = kNotReady;
    }
    // Dispatch: at most one block per SM per cycle; older kernels first.
    const uint32_t dispatch_start = last_dispatch + 1;
    const bool blocks_waiting =
        std::any_of(running.begin(), running.end(), [](const RunningKernel& rk) { return bool(rk.next); });
    const bool dispatch_scan = blocks_waiting && (views_changed || launched);
    launched = false;
    for (uint32_t i = 0; dispatch_scan && i < nsms; ++i) {
      const uint32_t s = (dispatch_start + i) % nsms;
      Sm& sm = *sms_[s];
      for (RunningKernel& rk : running) {
        if (!rk.next || !Sm::can_accept(sm_views_[s].residency, rk.launch, spec_.sm)) continue;
        if (sm.current_kernel() != rk.launch.kernel_index) collect_stats(sm);
        sm.take_spent_blocks(spare_blocks);
        sm.offer(rk.launch, std::move(rk.next), now);  // accepted in its tick, on its thread
        ++rk.dispatched;
        ++blocks_moved;
        rk.pull(spare_blocks);
        last_dispatch = s;
        break;
      }
    }
    if (memory_) {
      memory_->begin_cycle(now);
      edges_.clear();
      clocks_.memory_edges_until(now, [this](ClockDomain d, uint64_t cycle) {
        edges_.push_back(MemoryEdge{MemoryClock(uint8_t(d)), cycle});
      });
    }
    if (options.shuffle_seed)
      for (ThreadShare& share : shares_) std::shuffle(share.clusters.begin(), share.clusters.end(), rng);
    measure_ = options.profile || (balanced && simulated % period >= period - measured_cycles);
    for (uint32_t t = 0; t < threads; ++t)
      share_cursors_[t].reset(uint32_t(shares_[t].units.size() + shares_[t].clusters.size()));
    // Phase B: the memory-side units and the clusters, on the schedule's threads.
    // Adaptive: a cycle whose work is too small to pay for the handshake
    // runs on the leader alone (every share in turn: the same result), until
    // a cycle's work grows again.
    const auto phase_b = options.profile ? Clock::now() : Clock::time_point();
    if (team && !serial_stretch) {
      const auto t0 = Clock::now();
      team_running_ = true;
      if (spin_team) spin_team->run_cycle();
      else std_team->run_cycle();
      team_running_ = false;
      ++engine_.parallel_cycles;
      serial_stretch = Clock::now() - t0 < serial_below;
    } else {
      const auto t0 = team ? Clock::now() : Clock::time_point();
      for (uint32_t t = 0; t < threads; ++t) run_share(t, now);
      ++engine_.serial_cycles;
      if (team) serial_stretch = Clock::now() - t0 < parallel_above;
    }
    const auto phase_c = options.profile ? Clock::now() : Clock::time_point();
    ++simulated;
    if (balanced && simulated % period == 0) {
      rebalance();
      if (options.profile)
        for (size_t i = 0; i < item_ns_.size(); ++i) profile_ns[i] += item_ns_[i];
      std::fill(item_ns_.begin(), item_ns_.end(), 0);
    }
    // Phase C (leader): close kernels.
    // Retirements, in SM order, close kernels.
    views_changed = false;
    for (ThreadTally& tally : tallies_)
      if (tally.views_changed) {
        views_changed = true;
        tally.views_changed = false;
      }
    for (size_t s = 0; views_changed && s < sm_views_.size(); ++s) {
      const SmView& view = sm_views_[s];
      if (!view.retired) continue;
      if (options.drop_retirements_for_tests) continue;
      for (RunningKernel& rk : running)
        if (rk.launch.kernel_index == view.residency.kernel) rk.retired += view.retired;
      blocks_moved += view.retired;
    }
    for (size_t i = 0; i < running.size();) {
      RunningKernel& rk = running[i];
      if (!rk.done()) {
        ++i;
        continue;
      }
      KernelResult& r = results[result_of_job[rk.job]];
      r.cycles = now + 1 - r.start_cycle;
      r.complete = true;
      if (rk.dispatched == 0 && !rk.next) r.cycles = 0;  // a kernel without blocks
      if (memory_) r.memory = memory_->take_stats(rk.stat_slot);
      running.erase(running.begin() + long(i));
    }
    if (options.profile)
      engine_.serial_ns += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
          (phase_b - cycle_start) + (Clock::now() - phase_c)).count());
    if (running.empty() && next_job >= jobs.size()) {
      ++now;
      break;
    }
    // A waiting block that does not fit even an empty SM can never run. (Every
    // SM may also have just emptied with blocks still waiting: the next
    // dispatch places them.)
    bool any_busy = false;  // blocks dispatched and not retired
    for (const RunningKernel& rk : running) any_busy |= rk.dispatched > rk.retired;
    for (const RunningKernel& rk : running)
      if (!any_busy && rk.next && !Sm::can_accept(Sm::Residency{}, rk.launch, spec_.sm))
        throw SimulationError("kernel " + std::to_string(m.kernels[rk.launch.kernel_index].kernel_id) +
                              ": no SM can take a block of " + std::to_string(rk.launch.warps_per_block) + " warps");

    // Watchdog: a kernel that runs must make progress, in simulated and in
    // skipped cycles alike (jumps stop at each look).
    if (now + 1 >= next_watchdog) {
      next_watchdog += kWatchdogEvery;
      uint64_t issued = 0;
      for (const auto& sm : sms_) issued += sm->stats().warp_insts;
      for (const KernelResult& r : results) issued += r.stats.warp_insts;
      if (issued + blocks_moved != progress_before || running.empty()) {
        progress_before = issued + blocks_moved;
        last_progress_cycle = now;
      } else if (spec_.watchdog_cycles && now - last_progress_cycle > spec_.watchdog_cycles) {
        std::string msg = "no progress for " + std::to_string(now - last_progress_cycle) +
                          " cycles (watchdog, gpu.watchdog_cycles):";
        for (const RunningKernel& rk : running)
          msg += " kernel " + std::to_string(m.kernels[rk.launch.kernel_index].kernel_id) + " has " +
                 std::to_string(rk.dispatched) + " blocks dispatched, " + std::to_string(rk.retired) + " retired" +
                 (rk.next ? ", more waiting;" : ", none waiting;");
        int shown = 0;
        for (const auto& sm : sms_)
          for (const std::string& line : sm->describe_stuck_warps())
            if (shown++ < 8) msg += (shown == 1 ? " stuck warps:\n  " : "\n  ") + line;
        if (shown > 8) msg += "\n  ... and " + std::to_string(shown - 8) + " more";
        if (!shown) msg += " no warp is resident";
        throw SimulationError(msg);
      }
      if (options.progress && now + 1 >= next_progress) {
        next_progress += kProgressEvery;
        uint32_t finished = uint32_t(results.size() - running.size());
        options.progress(finished, now + 1 - run_start, issued);
      }
    }
    if (options.cycle_budget && now + 1 - run_start >= options.cycle_budget) {
      truncated = true;
      ++now;
      break;
    }
    // Fast-forward: when nothing can change before cycle `until`, the cycles
    // before it would only repeat this one; account for them and jump.
    if (options.fast_forward) {
      uint64_t until = next_change(now);
      if (until > now + 1) until = std::min(until, std::max(now + 1, launch_due()));
      if (until > now + 1)
        for (const RunningKernel& rk : running)
          if (rk.next)
            for (const SmView& view : sm_views_)
              if (Sm::can_accept(view.residency, rk.launch, spec_.sm)) until = now + 1;
      if (options.cycle_budget) until = std::min(until, run_start + options.cycle_budget - 1);
      until = std::min(until, next_watchdog - 1);
      if (until > now + 1) {
        skip_cycles(now, until);
        now = until - 1;
      }
    }
  }
  if (options.profile) {
    for (size_t i = 0; i < item_ns_.size(); ++i) profile_ns[i] += item_ns_[i];
    engine_.cluster_ns.assign(profile_ns.begin(), profile_ns.begin() + clusters);
    engine_.unit_ns.assign(profile_ns.begin() + clusters, profile_ns.end());
  }
  measure_ = false;
  engine_.wall_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - wall_start).count());
  for (const ThreadTally& tally : tallies_) engine_.helped_pieces += tally.helped;
  if (spin_team) engine_.handshake_wait_ns = spin_team->leader_wait_ns();
  if (std_team) engine_.handshake_wait_ns = std_team->leader_wait_ns();
  spin_team.reset();
  std_team.reset();
  for (const auto& sm : sms_) collect_stats(*sm);
  if (truncated)
    for (const RunningKernel& rk : running) {
      KernelResult& r = results[result_of_job[rk.job]];
      r.truncated = true;
      r.cycles = now - r.start_cycle;
      if (memory_) r.memory = memory_->take_stats(rk.stat_slot);
    }
  clock_ = now;
  return std::move(results_);
}

}  // namespace lockstep
