#pragma once
// `lockstep tune fit`: the values of chosen config keys (whole numbers, each
// in a range) that minimise the cycle error of simulated kernels against
// hardware cycles.
//
// The error of a config is the mean absolute percentage error of
// gpc__cycles_elapsed.max over every matched kernel (kernel_matching.h) of
// every target; a config the spec rejects, or whose run fails, has an
// infinite error.
//
// The search is a compass (pattern) search on the integer grid: it starts at
// the base config's values (clamped into the ranges), with a step per key of
// a quarter of its range (at least 1). Each round evaluates, for every key in
// the order given, the point one step below and one step above the current
// one (inside the range; points evaluated before are not run again). The best
// of them (lowest error; on a tie the first in that order) becomes the
// current point if its error is lower; otherwise every step is halved (at
// least 1), and the search ends when a round with all steps at 1 finds
// nothing better, when the error is zero, or when the next round would
// exceed the run budget. The
// runs of one round are independent simulate() calls (one thread each) run in
// parallel with oneTBB; their results are kept by position, so the search and
// its result are the same on any number of threads.
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
  double error = std::numeric_limits<double>::infinity();  // MAE %, infinite when infeasible
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
  bool converged = false;  // ended at zero error or with all steps at 1 and no better neighbour (else: the run budget)
};

// Throws std::runtime_error when the start config cannot be evaluated.
FitResult fit_config(const std::vector<FitTarget>& targets, const FitOptions& options);

}  // namespace lockstep::validate
