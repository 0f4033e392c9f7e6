#pragma once
// Everything a run takes beside the trace and the GPU: how the engine runs
// (EngineOptions), what is simulated, the switches only tests use, and the
// callbacks. Built once where the run is asked for (the command line, a
// bench, a test); simulate() and Gpu::run read it.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/trace/warnings.h"
#include "parallel/engine_options.h"

namespace lockstep {

struct SimulationReport;

// The cache state each kernel starts from, with Nsight Compute's meaning of
// its --cache-control: kNone keeps what the kernels (and copies) before left;
// kAll flushes every cache before each kernel, so that the kernel runs alone
// and cold, as ncu measures it by default. (L1D and instruction caches are
// invalidated at every kernel either way: the L1D is not coherent.)
enum class CacheControl : uint8_t { kNone, kAll };
inline const char* cache_control_name(CacheControl c) { return c == CacheControl::kAll ? "all" : "none"; }
inline CacheControl parse_cache_control(const std::string& text) {
  for (CacheControl c : {CacheControl::kNone, CacheControl::kAll})
    if (text == cache_control_name(c)) return c;
  throw std::invalid_argument("--cache-control " + text + ": expected all or none");
}

// Tests only: each breaks the simulation on purpose, for a check to catch it.
// Never set them otherwise.
struct TestSwitches {
  // A deliberately unlatched coupling — each SM, before it ticks, reads its
  // neighbour's live instruction count and skips the cycle when it is odd
  // (unless a block was just dispatched to it). Its result depends on tick
  // order and threads (a data race when threaded): the identity checks must
  // catch it.
  bool unlatched_coupling = false;
  // The dispatcher never hears of a retired block, so a kernel whose blocks
  // have all ended never finishes — a run that makes no progress with no warp
  // resident, for the watchdog to stop.
  bool drop_retirements = false;
};

struct RunOptions {
  EngineOptions engine;
  std::vector<uint32_t> kernel_ids;  // simulate only these kernel ids (empty: all)
  uint64_t max_cycles = 0;           // stop the run after this many core cycles (0: none)
  // MemcpyHtoD commands leave the copied bytes in the L2 (Accel-Sim's
  // -gpgpu_perf_sim_memcpy); false (--no-memcpy-warm): every kernel starts
  // with the caches as the kernels before it left them, the first with cold caches.
  bool memcpy_warms_l2 = true;
  // The model that runs the trace, by name (parallel/run_models.h): "cycle"
  // (the cycle model, built from sm_model and memory_model below), "memory"
  // (the cache-functional memory model: memory counters, no timing) or
  // "abstract" (core/abstract/: pre-characterised blocks, only the warp
  // scheduling simulated).
  std::string model = "cycle";
  // --cache-control: with kAll a kernel launches once the memory system is
  // idle and nothing runs, after its copies, into flushed caches.
  CacheControl cache_control = CacheControl::kNone;
  // The cycle model's SM model, by name (parallel/sm_models.h): "cycle".
  std::string sm_model = "cycle";
  // The cycle model's memory below the SMs, by name (parallel/memory_models.h): "cycle"
  // (L1D/L2/DRAM) or "perfect" (--perfect-memory: fixed latency).
  std::string memory_model = "cycle";
  // The abstract model reads a kernel of more than this many warp
  // instructions (by the trace's index) twice, and times its SMs while it
  // reads it the second time: it then holds what the SMs' resident blocks
  // need, not the whole kernel (same results, more time). 0: every kernel
  // so, also from a trace without an index (text), read once otherwise.
  uint64_t abstract_read_twice_above = 32'000'000;
  // Read the second time in steps of at least this many warp instructions
  // (and two blocks per SM), each timed before the next (tests: small).
  uint64_t abstract_read_ahead = 2'000'000;
  // The memory model runs every SM this many steps (memory instructions)
  // before the L2 slices take their requests (memsys/functional/
  // functional_gpu.h): the same results for any value (tests: 1, 7, ...);
  // more runs faster (each SM's L1 and each slice stay in the host's caches
  // longer) and holds more requests at once. 0: FunctionalGpu::kStepsPerChunk.
  uint64_t memory_steps_per_chunk = 0;
  // Each kernel's counters also per unit (--per-unit): per SM (KernelResult::
  // sm_stats) and per memory-side block instance (KernelResult::memory_units).
  // Off: nothing of it is kept; on: collected where the totals are, never per cycle.
  bool per_unit_stats = false;
  TestSwitches tests;
  WarningHandler warn = print_warning;  // once per kernel: warps that continue after a full-mask EXIT
  // Progress, every 65536 cycles: (kernel ordinal, kernels to run, cycles so
  // far, warp instructions so far) — for stderr.
  std::function<void(uint32_t, uint32_t, uint64_t, uint64_t)> progress;
  // When an error stops the run (a corrupt chunk, the watchdog): called,
  // before the error propagates, with the report of the kernels completed
  // before it (SimulationReport::error set), so that no finished result is lost.
  std::function<void(const SimulationReport&)> on_error;
};

}  // namespace lockstep
