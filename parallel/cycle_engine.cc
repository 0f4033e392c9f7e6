#include "parallel/cycle_engine.h"

#include <algorithm>
#include <numeric>

#include "parallel/longest_first.h"
#include "parallel/semaphore.h"
#include "parallel/share_cursor.h"
#include "parallel/worker_team.h"

namespace lockstep {

// The team of a threaded schedule, on the chosen semaphore kind.
struct CycleEngine::Team {
  std::unique_ptr<WorkerTeam<SpinFutexSemaphore>> spin;
  std::unique_ptr<WorkerTeam<StdSemaphore>> std;
  void run_cycle() {
    if (spin) spin->run_cycle();
    else std->run_cycle();
  }
  uint64_t leader_wait_ns() const { return spin ? spin->leader_wait_ns() : std->leader_wait_ns(); }
};

namespace {
uint64_t ns_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}
}  // namespace

CycleEngine::CycleEngine(std::vector<EnginePiece*> clusters, std::vector<EnginePiece*> units,
                         const EngineOptions& options, EngineReport& report)
    : clusters_(std::move(clusters)),
      units_(std::move(units)),
      options_(options),
      fallback_(options.serial_fallback),
      report_(report),
      threads_(options.threads_used()),
      balanced_(options.partition == Partition::kBalanced && threads_ > 1),
      rng_(options.shuffle_seed.value_or(0)),
      period_(std::max(options.rebalance_period, 4u)),
      measured_cycles_(std::min<uint64_t>(256, period_ / 4)),
      wall_start_(PieceClock::now()) {
  report_ = EngineReport{};
  report_.threads = threads_;
  assign_work(nullptr);
  item_ns_.assign(clusters_.size() + units_.size(), 0);
  if (options_.profile) profile_ns_.assign(item_ns_.size(), 0);
  tallies_.assign(threads_, ThreadTally{});
  share_cursors_ = std::make_unique<ShareCursor[]>(threads_);
  if (threads_ > 1) {
    team_ = std::make_unique<Team>();
    const bool oversubscribed = handshake_oversubscribed(threads_);
    if (fallback_.automatic) fallback_ = SerialFallback::for_handshake(options_.handshake, oversubscribed);
    auto share = [this](uint32_t t) { run_share(t, now_); };
    if (options_.handshake == HandshakeKind::kSpinFutex)
      team_->spin = std::make_unique<WorkerTeam<SpinFutexSemaphore>>(threads_ - 1, oversubscribed, share,
                                                                      options_.pin_threads);
    else
      team_->std = std::make_unique<WorkerTeam<StdSemaphore>>(threads_ - 1, oversubscribed, share,
                                                               options_.pin_threads);
  }
  last_cycle_end_ = PieceClock::now();
}

CycleEngine::~CycleEngine() = default;

void CycleEngine::run_cycle(uint64_t now) {
  const auto cycle_start = options_.profile ? PieceClock::now() : PieceClock::time_point();
  if (options_.profile) report_.serial_ns += ns_between(last_cycle_end_, cycle_start);
  now_ = now;
  if (options_.shuffle_seed)
    for (ThreadShare& share : shares_) std::shuffle(share.clusters.begin(), share.clusters.end(), rng_);
  if (options_.shuffle_seed || pieces_stale_) index_pieces();
  measure_ = options_.profile || (balanced_ && simulated_ % period_ >= period_ - measured_cycles_);
  for (uint32_t t = 0; t < threads_; ++t)
    share_cursors_[t].reset(uint32_t(shares_[t].units.size() + shares_[t].clusters.size()));
  // Adaptive: a cycle whose work is too small to pay for the handshake runs
  // on the leader alone (every share in turn: the same result), until a
  // cycle's work grows again.
  if (team_ && !serial_stretch_) {
    const auto t0 = PieceClock::now();
    team_running_ = true;
    team_->run_cycle();
    team_running_ = false;
    ++report_.parallel_cycles;
    serial_stretch_ = PieceClock::now() - t0 < fallback_.serial_below;
  } else {
    const auto t0 = team_ ? PieceClock::now() : PieceClock::time_point();
    for (uint32_t t = 0; t < threads_; ++t) run_share(t, now);
    ++report_.serial_cycles;
    if (team_) serial_stretch_ = PieceClock::now() - t0 < fallback_.parallel_above;
  }
  ++simulated_;
  if (balanced_ && simulated_ % period_ == 0) {
    rebalance();
    if (options_.profile)
      for (size_t i = 0; i < item_ns_.size(); ++i) profile_ns_[i] += item_ns_[i];
    std::fill(item_ns_.begin(), item_ns_.end(), 0);
  }
  if (options_.profile) last_cycle_end_ = PieceClock::now();
}

uint64_t CycleEngine::quiet_until(uint64_t now) const {
  uint64_t next = UINT64_MAX;
  for (const ThreadTally& tally : tallies_) next = std::min(next, tally.quiet_until);
  return std::max(next, now + 1);
}

void CycleEngine::finish() {
  if (options_.profile) {
    for (size_t i = 0; i < item_ns_.size(); ++i) profile_ns_[i] += item_ns_[i];
    report_.cluster_ns.assign(profile_ns_.begin(), profile_ns_.begin() + long(clusters_.size()));
    report_.unit_ns.assign(profile_ns_.begin() + long(clusters_.size()), profile_ns_.end());
  }
  measure_ = false;
  report_.wall_ns = ns_between(wall_start_, PieceClock::now());
  for (const ThreadTally& tally : tallies_) report_.helped_pieces += tally.helped;
  if (team_) report_.handshake_wait_ns = team_->leader_wait_ns();
  team_.reset();
}

void CycleEngine::run_share(uint32_t t, uint64_t now) {
  // Thread t's own pieces first, from the front; then it helps the other
  // threads with the pieces they have not started, from the back of their
  // shares (ShareCursor: each piece runs exactly once, on whichever thread
  // claims it; pieces meet only at latched ports, so that changes nothing).
  uint64_t quiet = options_.fast_forward ? UINT64_MAX : 0;
  uint32_t first = 0, end = 0;
  while (share_cursors_[t].claim_front(first, end))
    for (uint32_t i = first; i < end; ++i) run_piece(t, i, now, quiet);
  for (uint32_t k = 1; k < threads_; ++k) {
    const uint32_t owner = (t + k) % threads_;
    for (uint32_t i; share_cursors_[owner].claim_back(i);) {
      run_piece(owner, i, now, quiet);
      if (team_running_) ++tallies_[t].helped;
    }
  }
  if (options_.fast_forward) tallies_[t].quiet_until = quiet;
}

void CycleEngine::run_piece(uint32_t owner, uint32_t i, uint64_t now, uint64_t& quiet) {
  const ThreadShare::Piece& p = shares_[owner].pieces[i];
  if (measure_) [[unlikely]] {
    const auto start = PieceClock::now();
    p.piece->run(now);
    if (quiet > now + 1) quiet = std::min(quiet, p.piece->quiet_until(now));
    item_ns_[p.item] += ns_between(start, PieceClock::now());
    return;
  }
  p.piece->run(now);
  // Fast-forward, while the piece's state is in this thread's cache.
  if (quiet > now + 1) quiet = std::min(quiet, p.piece->quiet_until(now));
}

void CycleEngine::index_pieces() {
  for (ThreadShare& share : shares_) {
    share.pieces.clear();
    for (uint32_t u : share.units) share.pieces.push_back({units_[u], uint32_t(clusters_.size()) + u});
    for (uint32_t c : share.clusters) share.pieces.push_back({clusters_[c], c});
  }
  pieces_stale_ = false;
}

void CycleEngine::rebalance() {
  if (smoothed_cost_.empty()) smoothed_cost_.assign(item_ns_.begin(), item_ns_.end());
  for (size_t i = 0; i < item_ns_.size(); ++i) smoothed_cost_[i] = 0.5 * smoothed_cost_[i] + 0.5 * double(item_ns_[i]);
  assign_work(&smoothed_cost_);
  ++report_.rebalances;
}

void CycleEngine::assign_work(const std::vector<double>* cost) {
  const uint32_t clusters = uint32_t(clusters_.size()), units = uint32_t(units_.size());
  const uint32_t threads = threads_;
  shares_.assign(threads, {});
  pieces_stale_ = true;
  report_.memory_threads = 0;
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
  const bool measured = options_.partition == Partition::kBalanced && cost;

  // para2: the last `memory_threads` threads run the memory side alone.
  uint32_t memory_threads = 0;
  if (options_.schedule == Schedule::kPara2 && units > 0) {
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
  report_.memory_threads = memory_threads;
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
    const uint32_t t = options_.partition == Partition::kRoundRobin ? c % sm_threads
                                                                    : uint32_t(uint64_t(c) * sm_threads / clusters);
    shares_[t].clusters.push_back(c);
  }
  // Units: on the leader (para1), or dealt round robin over the memory threads (para2).
  for (uint32_t u = 0; u < units; ++u) shares_[memory_threads ? sm_threads + u % memory_threads : 0].units.push_back(u);
}

}  // namespace lockstep
