#pragma once
// Counting semaphores for the per-cycle handshake of the threaded engine.
//
// Every simulated core cycle the leader posts one "go" semaphore per worker,
// runs its own share of the clusters, then waits W times on its "done"
// semaphore; each worker waits on its "go", runs its share and posts "done"
// (parallel-gpgpu-sim, Alg. 2; the ILD thread of Alg. 6 posts "done" for the
// previous cycle before it waits for the next "go"). The paper found
// semaphores cheaper than a barrier for this; at tens of thousands of cycles
// per second the cost of one handshake is the cost of the engine.
//
// Two semaphore kinds with one interface (a template parameter of the engine,
// so no virtual call per operation):
//   SpinFutexSemaphore  spins on the count with a pause instruction for an
//                       adaptive number of iterations, yields the core a few
//                       times, then sleeps on a Linux futex; release() enters
//                       the kernel only when an acquirer is asleep.
//   StdSemaphore        std::counting_semaphore<> (libstdc++: a short spin,
//                       then the library's own futex wait).
// Both count what acquire() waited: wait_ns(), blocks() and spins()
// (SpinFutexSemaphore reads the clock only in acquires that did not succeed
// at once).
#include <atomic>
#include <cstdint>
#include <memory>
#include <semaphore>
#include <type_traits>
#include <vector>

#include "parallel/engine_options.h"  // HandshakeKind

namespace lockstep {

// True when `threads` threads that use the handshake outnumber the hardware
// threads, i.e. a spinning waiter would take the core of the thread it waits for.
bool handshake_oversubscribed(unsigned threads);

// Bounds of the adaptive spin of SpinFutexSemaphore, in pause iterations
// (one pause is ~60 ns on the AMD EPYC development VM, 5-40 ns elsewhere).
struct SpinBounds {
  uint32_t min = 0;      // the limit never shrinks below this
  uint32_t max = 0;      // ... nor grows above this
  uint32_t initial = 0;  // limit of a new semaphore
  // After a failed spin, sched_yield() this many times (checking the count)
  // before sleeping: when the thread being waited for is runnable on this
  // core, yielding runs it without a futex sleep and wake-up.
  uint32_t yields = 0;
};

class alignas(64) SpinFutexSemaphore {
 public:
  // Dedicated cores: spin long — the engine's threads meet every simulated
  // cycle (tens of us apart), and a thread that falls asleep between cycles
  // costs a futex wake-up (several us) on the critical path every cycle.
  // 256 .. 16384 pauses (~15 us .. ~1 ms on this VM); then yield a few times.
  static constexpr SpinBounds kDedicatedSpin{256, 16384, 4096, 4};
  // More threads than cores: the thread being waited for may need this
  // core, so do not spin; yield it a few times, then sleep.
  static constexpr SpinBounds kOversubscribedSpin{0, 0, 0, 4};

  explicit SpinFutexSemaphore(int32_t initial = 0, bool oversubscribed = false)
      : SpinFutexSemaphore(initial, oversubscribed ? kOversubscribedSpin : kDedicatedSpin) {}
  SpinFutexSemaphore(int32_t initial, SpinBounds bounds);
  SpinFutexSemaphore(const SpinFutexSemaphore&) = delete;
  SpinFutexSemaphore& operator=(const SpinFutexSemaphore&) = delete;

  // Adds n to the count (release ordering: what the poster wrote before is
  // visible to the thread its post lets through); wakes up to n sleepers.
  void release(int32_t n = 1) {
    count_.fetch_add(n, std::memory_order_seq_cst);
    // seq_cst pairs with the sleeper's seq_cst increment of sleepers_ before
    // its last look at the count: either the sleeper sees this count, or
    // this load sees the sleeper and wakes it.
    if (sleepers_.load(std::memory_order_seq_cst) > 0) wake(n);
  }
  // Takes one unit if the count is positive (acquire ordering).
  bool try_acquire() {
    int32_t c = count_.load(std::memory_order_relaxed);
    while (c > 0)
      if (count_.compare_exchange_weak(c, c - 1, std::memory_order_acquire,
                                       std::memory_order_relaxed))
        return true;
    return false;
  }
  // Takes one unit, waiting (spin, then futex sleep) while the count is 0.
  void acquire() {
    if (!try_acquire()) acquire_slow();
  }

  uint64_t wait_ns() const { return wait_ns_.load(std::memory_order_relaxed); }
  uint64_t blocks() const { return blocks_.load(std::memory_order_relaxed); }
  uint64_t spins() const { return spins_.load(std::memory_order_relaxed); }
  // Acquires that did not succeed at once (spun, and maybe slept).
  uint64_t slow_acquires() const { return slow_acquires_.load(std::memory_order_relaxed); }
  uint32_t spin_limit() const { return spin_limit_.load(std::memory_order_relaxed); }

 private:
  void acquire_slow();
  void wake(int32_t n);

  // Shared by posters and acquirers. count_ is the futex word.
  std::atomic<int32_t> count_;
  std::atomic<int32_t> sleepers_{0};
  // Acquirer side only, on its own cache line.
  alignas(64) std::atomic<uint32_t> spin_limit_;
  std::atomic<uint64_t> wait_ns_{0}, blocks_{0}, spins_{0}, slow_acquires_{0};
  SpinBounds bounds_;
};

class alignas(64) StdSemaphore {
 public:
  // `oversubscribed` is accepted for one constructor across kinds; the
  // library picks its own spin.
  explicit StdSemaphore(int32_t initial = 0, bool oversubscribed = false) : sem_(initial) {}
  StdSemaphore(const StdSemaphore&) = delete;
  StdSemaphore& operator=(const StdSemaphore&) = delete;

  // Acquires that lasted at least this long count as blocks: longer than the
  // library's own spin (libstdc++ 12: 12 pauses, then 4 sched_yield), so the
  // thread slept on the futex or another thread ran in its place.
  static constexpr uint64_t kBlockNs = 2000;

  void release(int32_t n = 1) { sem_.release(n); }
  // libstdc++'s try_acquire itself spins (pauses, then sched_yield) before
  // it gives up; there is no plain look at the count.
  bool try_acquire() { return sem_.try_acquire(); }
  // Timed on every call: the library's try_acquire already spins, so there
  // is no cheap fast path to leave untimed (two clock reads, ~150 ns here).
  void acquire();

  uint64_t wait_ns() const { return wait_ns_.load(std::memory_order_relaxed); }
  uint64_t blocks() const { return blocks_.load(std::memory_order_relaxed); }
  uint64_t spins() const { return 0; }  // not visible
  uint64_t slow_acquires() const { return blocks(); }

 private:
  std::counting_semaphore<> sem_;
  alignas(64) std::atomic<uint64_t> wait_ns_{0}, blocks_{0};
};

// The semaphore type of a kind, for engines templated on HandshakeKind.
template <HandshakeKind kKind>
using HandshakeSemaphore =
    std::conditional_t<kKind == HandshakeKind::kSpinFutex, SpinFutexSemaphore, StdSemaphore>;

// The per-cycle handshake of Alg. 2 over W workers, one "go" semaphore per
// worker (each on its own cache line) and one shared "done" semaphore.
//   leader:    post_all(); <own share>; wait_all(); <remaining tasks>
//   worker w:  wait_go(w); <own share>; post_done()
template <typename Semaphore>
class CycleHandshake {
 public:
  CycleHandshake(unsigned workers, bool oversubscribed) : done_(0, oversubscribed) {
    go_.reserve(workers);
    for (unsigned w = 0; w < workers; ++w)
      go_.push_back(std::make_unique<Semaphore>(0, oversubscribed));
  }
  unsigned workers() const { return unsigned(go_.size()); }

  void post_all() {
    for (auto& g : go_) g->release();
  }
  void wait_all() {
    for (size_t i = 0; i < go_.size(); ++i) done_.acquire();
  }
  void wait_go(unsigned w) { go_[w]->acquire(); }
  void post_done() { done_.release(); }

  const Semaphore& done() const { return done_; }
  const Semaphore& go(unsigned w) const { return *go_[w]; }

 private:
  Semaphore done_;
  std::vector<std::unique_ptr<Semaphore>> go_;
};

}  // namespace lockstep
