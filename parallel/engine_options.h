#pragma once
// How the cycle engine (parallel/cycle_engine.h) runs a core cycle's work on
// threads: the schedule, the partition of the work, the per-cycle handshake,
// and the knobs that never change a result. The command line parses the names
// once (parse_*); everything below it sees the enums.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace lockstep {

// How the simulation threads share a core cycle (ARCHITECTURE §5).
enum class Schedule : uint8_t {
  kSeq = 0,  // one thread: memory side, then every cluster
  kPara1,    // clusters over every thread; the memory side on the leader (balanced: anywhere)
  kPara2,    // the memory side on threads of its own (max(1, threads / 4); balanced: sized by cost)
};
enum class Partition : uint8_t {
  kContiguous = 0,  // equal contiguous ranges of clusters per thread
  kRoundRobin,      // cluster c to thread c mod threads
  kBalanced,        // every cluster and memory-side unit by its measured time (longest first, to the least loaded)
};
// The per-cycle semaphores (parallel/semaphore.h).
enum class HandshakeKind : uint8_t { kSpinFutex, kStd };

const char* schedule_name(Schedule s);
const char* partition_name(Partition p);
const char* handshake_name(HandshakeKind h);
// Each throws std::invalid_argument naming the option and the accepted values.
Schedule parse_schedule(const std::string& text);
Partition parse_partition(const std::string& text);
HandshakeKind parse_handshake(const std::string& text);

// The adaptive serial fallback of the threaded schedules, by the wall time of
// a cycle's phase B: after a team cycle shorter than serial_below, cycles run
// on the leader alone until one takes longer than parallel_above. Running a
// cycle alone pays when the team's work is shorter than a handshake costs
// the leader: with spinning threads on cores of their own (a handshake of
// about a microsecond) only for the lightest cycles, with threads that sleep
// between cycles (std semaphores, more threads than cores) for more
// (bench/README.md). `automatic` (the default): the engine picks the
// thresholds by its handshake (for_handshake). Tests change it: off() runs
// every simulated cycle of a threaded schedule on the team, so that a
// threaded check checks threads.
struct SerialFallback {
  std::chrono::nanoseconds serial_below = std::chrono::microseconds(6);
  std::chrono::nanoseconds parallel_above = std::chrono::microseconds(12);
  bool automatic = true;
  static SerialFallback off() {
    SerialFallback f;
    f.serial_below = std::chrono::nanoseconds(0);  // no phase B takes less
    f.automatic = false;
    return f;
  }
  static SerialFallback for_handshake(HandshakeKind kind, bool oversubscribed) {
    SerialFallback f;
    f.automatic = false;
    if (kind == HandshakeKind::kSpinFutex && !oversubscribed) {
      f.serial_below = std::chrono::microseconds(1);
      f.parallel_above = std::chrono::microseconds(2);
    }
    return f;
  }
  bool is_off() const { return serial_below <= std::chrono::nanoseconds(0); }
};

// None of these changes a simulated result.
struct EngineOptions {
  Schedule schedule = Schedule::kSeq;
  uint32_t threads = 1;  // simulation threads, the memory-side thread included (seq: one)
  Partition partition = Partition::kRoundRobin;  // measured fastest (bench/README.md, --mode defaults)
  HandshakeKind handshake = HandshakeKind::kSpinFutex;
  std::optional<uint64_t> shuffle_seed;  // tick clusters in a random order each cycle
  bool fast_forward = true;              // jump over cycles in which nothing can change
  bool pin_threads = false;              // pin thread i to CPU i (parallel/thread_affinity.h)
  bool profile = false;                  // time every piece of work (EngineReport)
  uint32_t rebalance_period = 4096;      // balanced: cycles between reassignments (>= 4; tests use short ones)
  SerialFallback serial_fallback;        // tests only change it

  // The threads the schedule uses: one for seq.
  uint32_t threads_used() const { return schedule == Schedule::kSeq ? 1 : (threads ? threads : 1); }
};

}  // namespace lockstep
