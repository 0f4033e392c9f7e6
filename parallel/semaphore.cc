#include "parallel/semaphore.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace lockstep {
namespace {

static_assert(sizeof(std::atomic<int32_t>) == sizeof(int32_t) &&
                  std::atomic<int32_t>::is_always_lock_free,
              "the futex word is the atomic count itself");

// One spin iteration's pause: tells the core this is a spin-wait loop (frees
// the pipeline for the sibling hyper-thread, avoids the memory-order
// mis-speculation flush when the line changes). No yield.
inline void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

uint64_t now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

int32_t* futex_word(std::atomic<int32_t>& a) { return reinterpret_cast<int32_t*>(&a); }

// Sleeps while *word == expected (returns at once if it is not, on a wake
// or on a signal; the caller re-checks).
void futex_wait(std::atomic<int32_t>& word, int32_t expected) {
  syscall(SYS_futex, futex_word(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void futex_wake(std::atomic<int32_t>& word, int32_t n) {
  syscall(SYS_futex, futex_word(word), FUTEX_WAKE_PRIVATE, n, nullptr, nullptr, 0);
}

}  // namespace

bool handshake_oversubscribed(unsigned threads) {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw != 0 && threads > hw;
}

SpinFutexSemaphore::SpinFutexSemaphore(int32_t initial, SpinBounds bounds)
    : count_(initial),
      spin_limit_(std::clamp(bounds.initial, bounds.min, bounds.max)),
      bounds_(bounds) {}

void SpinFutexSemaphore::wake(int32_t n) { futex_wake(count_, n); }

void SpinFutexSemaphore::acquire_slow() {
  const uint64_t start = now_ns();
  slow_acquires_.fetch_add(1, std::memory_order_relaxed);

  // Spin: a relaxed look at the count each pause, the CAS only when it is
  // positive (no cache-line ping-pong while it is 0).
  const uint32_t limit = spin_limit_.load(std::memory_order_relaxed);
  uint32_t spun = 0;
  bool got = false;
  while (spun < limit) {
    cpu_pause();
    ++spun;
    if (count_.load(std::memory_order_relaxed) > 0 && try_acquire()) {
      got = true;
      break;
    }
  }
  spins_.fetch_add(spun, std::memory_order_relaxed);

  if (got) {
    // The wait ended inside the spin: allow a longer spin next time.
    spin_limit_.store(std::min(bounds_.max, std::max(limit * 2, bounds_.min + 1)),
                      std::memory_order_relaxed);
  } else {
    // The spin was wasted: halve it.
    spin_limit_.store(std::max(bounds_.min, limit / 2), std::memory_order_relaxed);
    for (uint32_t y = 0; y < bounds_.yields && !got; ++y) {
      std::this_thread::yield();
      got = try_acquire();
    }
  }
  if (!got) {
    blocks_.fetch_add(1, std::memory_order_relaxed);
    for (;;) {
      // Announce the sleep, then look at the count once more (both seq_cst,
      // paired with release(): its count increment and sleeper check).
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      if (count_.load(std::memory_order_seq_cst) == 0) futex_wait(count_, 0);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
      if (try_acquire()) break;
    }
  }
  wait_ns_.fetch_add(now_ns() - start, std::memory_order_relaxed);
}


void StdSemaphore::acquire() {
  const uint64_t start = now_ns();
  sem_.acquire();
  const uint64_t waited = now_ns() - start;
  wait_ns_.fetch_add(waited, std::memory_order_relaxed);
  if (waited >= kBlockNs) blocks_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace lockstep
