#pragma once
// `lockstep tune fit`: the values of chosen config keys (whole numbers, each
// in a range) that minimise the cycle error of simulated kernels against
// hardware cycles.
//
// The objective of a config is the root mean square of the kernels' relative
// cycle errors, (simulated - hardware) / hardware of gpc__cycles_elapsed.max,
// over every matched kernel (kernel_matching.h) of every target, in %: each
// kernel weighs the same whatever its length, and a large error on one kernel
// costs more than small ones on several (the sum of squares is smooth where
// the cycles are linear in the keys, as latencies and fixed costs are). The
// mean absolute error is reported beside it. A config the spec rejects, or
// whose run fails, has an infinite error.
//
// The search works on the integer grid from the base config's values
// (clamped into the ranges), with a step per key of a quarter of its range
// (at least 1). A round has two parts, each a set of independent runs:
//   1. probes: for every key in the order given, the point one step below and
//      one step above the current one (inside the range);
//   2. moves, from what the probes measured: the point that takes every key's
//      better probe that improved on the current point at once (when more than
//      one key improved), and a Gauss-Newton step: the kernels' relative errors
//      are taken as linear in the keys, with slopes from each key's probes
//      (central differences, or one-sided at a range end), and the
//      least-squares solution of "errors + slopes x change = 0" is rounded and
//      clamped into the ranges (keys whose probes changed nothing stay put).
// Points evaluated before are not run again. The best point of the round
// (lowest objective; on a tie the first in the order above) becomes the
// current one if it is better. Each key's step then halves (at least 1)
// unless one of its own probes improved on the round's start, so keys already
// right narrow in while others keep their stride. When a round with every
// step at 1 finds nothing better the search restarts once from the best point
// with every step at an eighth of its first one (at least 1), which can leave
// a point no single-key step improves; it ends when that restart finds nothing
// better either, when the error is zero, or when the next part of a round
// would exceed the run budget. The runs of a part are independent simulate()
// calls (one thread each) run in parallel with oneTBB; their results are kept
// by position and every choice is made from them in a fixed order, so the
// search and its result are the same on any number of threads.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "frontend/trace/kernel_completeness.h"
#include "frontend/validate/kernel_counters.h"
#include "parallel/run_options.h"

namespace lockstep::validate {

struct FitParameter {
  std::string key;
  int64_t low = 0, high = 0;
};
// "unit.SP.latency=2:20"; throws std::invalid_argument.
FitParameter parse_fit_parameter(const std::string& text);

// Traces whose kernels, simulated one after another, are compared with one hardware sequence.
struct FitTarget {
  std::vector<std::string> traces;
  KernelSequence hardware;
};

struct FitOptions {
  std::string gpu;                        // --gpu (may be empty when config_files names the base)
  std::vector<std::string> config_files;  // --config layers
  std::vector<std::string> sets;          // --set overrides under the fitted keys
  RunOptions run;                         // per simulation (engine threads are forced to 1)
  PartialTraces partial = PartialTraces::kReject;
  std::vector<FitParameter> parameters;
  size_t max_runs = 200;  // configs evaluated, the start included
  unsigned jobs = 0;      // simulations at once (0: oneTBB's default, the cores)
};

// One config's result: its values, its error, each kernel's simulated cycles.
struct FitPoint {
  std::vector<int64_t> values;
  double error = std::numeric_limits<double>::infinity();  // the objective: RMS relative error %, infinite when infeasible
  double mean_abs_error = std::numeric_limits<double>::infinity();  // MAE %
  std::string failure;                                     // why it is infeasible
  struct Kernel {
    std::string name, hardware_where;
    double hardware = 0, simulated = 0;
  };
  std::vector<Kernel> kernels;  // the matched kernels, target by target
  std::vector<std::string> unmatched;
};

struct FitResult {
  FitPoint start, best;
  size_t runs = 0, rounds = 0;
  bool restarted = false;  // the restart with smaller steps ran
  bool converged = false;  // ended at zero error or with no better point after the restart (else: the run budget)
};

// Throws std::runtime_error when the start config cannot be evaluated.
FitResult fit_config(const std::vector<FitTarget>& targets, const FitOptions& options);

}  // namespace lockstep::validate
