#pragma once
// The per-cycle fork-join of the threaded schedules (papers/parallel-gpgpu-sim.txt
// Alg. 2, as a tree): the leader (the calling thread, index 0) and W workers
// (indices 1..W) each run their share of a cycle. Thread i's children are
// i * kFanOut + 1 .. i * kFanOut + kFanOut. A thread posts one "go"
// semaphore per child, runs its share, waits on one "done" semaphore per
// child, then (a worker) posts its own "done". With up to kFanOut workers this
// is the paper's flat handshake; with more, the leader's own cost stays that
// of kFanOut children and the depth grows as log(threads) / log(kFanOut).
// The semaphores give the happens-before edges that make everything the
// leader wrote before the fork visible to the workers and everything the
// workers wrote visible to the leader after the join.
//
// Semaphore is any type with release() and acquire() (parallel/semaphore.h).
// The share is a function reference set once; calling it is one indirect call
// per thread per cycle, never per instruction.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "parallel/thread_affinity.h"

namespace lockstep {

template <typename Semaphore>
class WorkerTeam {
 public:
  // `share(i)` is called once per cycle on thread i (0 = the leader).
  // `oversubscribed`: more simulation threads than hardware threads (spin less).
  // `pin`: thread i runs only on CPU i mod (CPUs); the leader (the caller)
  // is pinned too, and unpinned again when the team ends.
  WorkerTeam(uint32_t workers, bool oversubscribed, std::function<void(uint32_t)> share, bool pin = false)
      : share_(std::move(share)), pinned_(pin) {
    slots_.reserve(workers);
    for (uint32_t i = 0; i < workers; ++i) slots_.push_back(std::make_unique<Slot>(oversubscribed));
    if (pin) leader_affinity_ = pin_current_thread(0);
    for (uint32_t i = 0; i < workers; ++i) {
      try {
        slots_[i]->thread = std::thread([this, i, pin] {
          if (pin) pin_current_thread(i + 1);
          work(i + 1);
        });
      } catch (const std::system_error& e) {
        // The system has no thread to spare: the workers started so far end,
        // and the run stops with one line instead of std::terminate.
        stop();
        throw std::runtime_error("cannot start simulation thread " + std::to_string(i + 2) + " of " +
                                 std::to_string(workers + 1) + " (" + e.what() + "); try fewer --threads");
      }
    }
  }
  ~WorkerTeam() { stop(); }
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  uint32_t threads() const { return uint32_t(slots_.size()) + 1; }

  static constexpr uint32_t kFanOut = 4;

  // One cycle: every thread runs its share; returns when all have.
  void run_cycle() {
    fork(0);
    share_(0);
    const auto t0 = std::chrono::steady_clock::now();
    join(0);
    wait_ns_ += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }
  // Nanoseconds the leader spent waiting for the workers at the join.
  uint64_t leader_wait_ns() const { return wait_ns_; }

 private:
  struct Slot {
    explicit Slot(bool oversubscribed) : go(0, oversubscribed), done(0, oversubscribed) {}
    Semaphore go;
    Semaphore done;
    std::thread thread;
  };
  // Ends every started worker and waits for it; the leader's affinity as it was.
  void stop() {
    stop_.store(true, std::memory_order_relaxed);
    fork(0);  // each worker passes the stop on to its children (a slot without a thread: a post nobody takes)
    for (auto& s : slots_)
      if (s->thread.joinable()) s->thread.join();
    if (pinned_) restore_affinity(leader_affinity_);
  }
  // Thread i's children in the tree (workers are slots_[index - 1]).
  void fork(uint32_t i) {
    for (uint64_t c = uint64_t(i) * kFanOut + 1; c <= uint64_t(i) * kFanOut + kFanOut && c <= slots_.size(); ++c)
      slots_[c - 1]->go.release();
  }
  void join(uint32_t i) {
    for (uint64_t c = uint64_t(i) * kFanOut + 1; c <= uint64_t(i) * kFanOut + kFanOut && c <= slots_.size(); ++c)
      slots_[c - 1]->done.acquire();
  }
  void work(uint32_t index) {
    Slot& s = *slots_[index - 1];
    for (;;) {
      s.go.acquire();
      fork(index);  // also on stop: the children must see it
      if (stop_.load(std::memory_order_relaxed)) return;
      share_(index);
      join(index);
      s.done.release();
    }
  }

  std::function<void(uint32_t)> share_;
  bool pinned_ = false;
  CpuAffinity leader_affinity_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::atomic<bool> stop_{false};
  uint64_t wait_ns_ = 0;
};

}  // namespace lockstep
