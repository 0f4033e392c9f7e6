// Per-cycle handshake benchmark. Prints figures, asserts nothing.
//
// Runs the leader/worker protocol of the threaded engine (parallel-gpgpu-sim
// Alg. 2: the leader posts one "go" per worker, does its own share, waits W
// "done"s) for both semaphore kinds of parallel/semaphore.h, with 1, 3 and 7
// workers (7 = 8 threads: oversubscribed on the 2-core VM), with no work and
// with ~5 us of busy work per thread per cycle. For each run it prints
//   median  the median leader cycle (post_all .. wait_all returns), ns
//   p90     its 90th percentile, ns
//   mean    wall time / cycles, ns
//   wait%   share of all threads' time spent inside acquire() slow paths
//           (sum of wait_ns over every semaphore / (threads x wall))
//   blocks  futex sleeps (std: acquires that did not succeed at once) per cycle
// and a one-line recommendation of the faster kind.
//
// usage: handshake [--cycles 200000] [--work-cycles 50000] [--work-ns 5000]
//                  [--hint auto|dedicated|oversubscribed]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support.h"
#include "parallel/semaphore.h"

using namespace lockstep;
using Clock = std::chrono::steady_clock;

namespace {

// Busy work: a dependent integer chain the compiler cannot fold.
uint64_t busy(uint64_t iters, uint64_t seed) {
  uint64_t x = seed | 1;
  for (uint64_t i = 0; i < iters; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

// Iterations of busy() that take `ns` nanoseconds on an idle core (best of 5).
uint64_t calibrate(uint64_t ns) {
  const uint64_t probe = 1'000'000;
  double best = 1e30;
  volatile uint64_t sink = 0;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = Clock::now();
    sink = sink + busy(probe, r);
    best = std::min(best, std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
  }
  return uint64_t(double(probe) * double(ns) / best);
}

enum class Hint { kAuto, kDedicated, kOversubscribed };

struct Result {
  double median_ns = 0, p90_ns = 0, mean_ns = 0, wait_share = 0, blocks_per_cycle = 0;
};

template <typename Semaphore>
Result run(unsigned workers, uint64_t cycles, uint64_t work_iters, Hint hint) {
  const bool oversubscribed = hint == Hint::kAuto ? handshake_oversubscribed(workers + 1)
                                                  : hint == Hint::kOversubscribed;
  CycleHandshake<Semaphore> handshake(workers, oversubscribed);
  bool stop = false;  // written by the leader before its last post
  std::vector<uint64_t> sinks(workers * 8);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      uint64_t sink = 0;
      for (;;) {
        handshake.wait_go(w);
        if (stop) break;
        if (work_iters) sink += busy(work_iters, sink);
        handshake.post_done();
      }
      sinks[w * 8] = sink;
    });

  // Warm-up cycles (thread start, spin limits settle), then timed cycles.
  const uint64_t warmup = std::min<uint64_t>(cycles / 10, 2000);
  uint64_t sink = 0;
  for (uint64_t c = 0; c < warmup; ++c) {
    handshake.post_all();
    if (work_iters) sink += busy(work_iters, sink);
    handshake.wait_all();
  }
  auto waited = [&] {
    uint64_t ns = handshake.done().wait_ns();
    for (unsigned w = 0; w < workers; ++w) ns += handshake.go(w).wait_ns();
    return ns;
  };
  auto blocked = [&] {
    uint64_t n = handshake.done().blocks();
    for (unsigned w = 0; w < workers; ++w) n += handshake.go(w).blocks();
    return n;
  };
  std::vector<uint32_t> cycle_ns(cycles);
  const uint64_t wait0 = waited(), blocks0 = blocked();
  const auto start = Clock::now();
  auto t = start;
  for (uint64_t c = 0; c < cycles; ++c) {
    handshake.post_all();
    if (work_iters) sink += busy(work_iters, sink);
    handshake.wait_all();
    const auto now = Clock::now();
    cycle_ns[c] = uint32_t(std::min<int64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - t).count(), UINT32_MAX));
    t = now;
  }
  const double wall = std::chrono::duration<double, std::nano>(t - start).count();
  // Read the counters before the stop post (the workers are all parked in wait_go).
  const uint64_t wait_ns = waited() - wait0, blocks = blocked() - blocks0;
  stop = true;
  handshake.post_all();
  for (auto& th : threads) th.join();
  if (sink == 42) std::printf(" ");

  std::sort(cycle_ns.begin(), cycle_ns.end());
  Result r;
  r.median_ns = cycle_ns[cycles / 2];
  r.p90_ns = cycle_ns[cycles * 9 / 10];
  r.mean_ns = wall / double(cycles);
  r.wait_share = double(wait_ns) / (wall * double(workers + 1));
  r.blocks_per_cycle = double(blocks) / double(cycles);
  return r;
}

void print(const char* kind, unsigned workers, uint64_t work_ns, uint64_t cycles, const Result& r) {
  std::printf("%-11s %7u %7llu %8llu %9.0f %9.0f %9.0f %6.1f%% %7.2f\n", kind, workers,
              (unsigned long long)work_ns, (unsigned long long)cycles, r.median_ns, r.p90_ns,
              r.mean_ns, 100.0 * r.wait_share, r.blocks_per_cycle);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  constexpr const char* kUsage =
      "usage: handshake [--cycles N] [--work-cycles N] [--work-ns NS] [--hint auto|dedicated|oversubscribed]\n"
      "Median, p90 and mean per-cycle leader/worker handshake of both semaphore kinds, 1, 3 and 7 workers.\n";
  if (lockstep::bench::wants_help(argc, argv, kUsage)) return 0;
  uint64_t cycles = 200'000, work_cycles = 50'000, work_ns = 5000;
  Hint hint = Hint::kAuto;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--cycles") cycles = std::strtoull(v, nullptr, 10), ++i;
    else if (a == "--work-cycles") work_cycles = std::strtoull(v, nullptr, 10), ++i;
    else if (a == "--work-ns") work_ns = std::strtoull(v, nullptr, 10), ++i;
    else if (a == "--hint") {
      hint = !std::strcmp(v, "dedicated")        ? Hint::kDedicated
             : !std::strcmp(v, "oversubscribed") ? Hint::kOversubscribed
                                                 : Hint::kAuto;
      ++i;
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  const uint64_t work_iters = calibrate(work_ns);
  std::printf("hardware threads %u; busy work %llu ns = %llu iterations; spin hint %s\n",
              std::thread::hardware_concurrency(), (unsigned long long)work_ns,
              (unsigned long long)work_iters,
              hint == Hint::kAuto ? "auto (oversubscribed when threads > hardware threads)"
              : hint == Hint::kDedicated ? "dedicated" : "oversubscribed");
  std::printf("%-11s %7s %7s %8s %9s %9s %9s %7s %7s\n", "kind", "workers", "work_ns", "cycles",
              "median_ns", "p90_ns", "mean_ns", "wait%", "blk/cyc");

  // Per (workers, work) pair: the two kinds' medians, for the recommendation.
  double log_ratio_sum = 0;  // sum of log(spin-futex median / std median)
  int spin_wins = 0, pairs = 0;
  for (const uint64_t work : {uint64_t(0), work_ns}) {
    const uint64_t n = work ? work_cycles : cycles;
    for (const unsigned workers : {1u, 3u, 7u}) {
      const Result s = run<SpinFutexSemaphore>(workers, n, work ? work_iters : 0, hint);
      print("spin-futex", workers, work, n, s);
      const Result d = run<StdSemaphore>(workers, n, work ? work_iters : 0, hint);
      print("std", workers, work, n, d);
      log_ratio_sum += std::log(std::max(s.median_ns, 1.0) / std::max(d.median_ns, 1.0));
      spin_wins += s.median_ns <= d.median_ns;
      ++pairs;
    }
  }
  const double geo = std::exp(log_ratio_sum / pairs);
  std::printf("recommendation: %s (spin-futex median faster in %d of %d runs; "
              "geometric-mean median ratio spin-futex/std = %.2f)\n",
              geo <= 1.0 ? "SpinFutexSemaphore" : "StdSemaphore", spin_wins, pairs, geo);
  return 0;
}
