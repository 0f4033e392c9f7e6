#include "frontend/validate/config_fit.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>

#include "configs/spec/gpu_config.h"
#include "frontend/convert/open_trace.h"
#include "frontend/validate/counter_pairs.h"
#include "frontend/validate/kernel_matching.h"
#include "parallel/simulation.h"

namespace lockstep::validate {
namespace {

int64_t parse_int(const std::string& text, const std::string& what) {
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw std::invalid_argument(what + ": '" + text + "' is not a whole number");
  return v;
}

class Evaluator {
 public:
  Evaluator(const std::vector<FitTarget>& targets, const FitOptions& options) : targets_(targets), options_(options) {}

  FitPoint evaluate(const std::vector<int64_t>& values) const {
    FitPoint p;
    p.values = values;
    try {
      std::vector<std::string> sets = options_.sets;
      for (size_t i = 0; i < values.size(); ++i)
        sets.push_back(options_.parameters[i].key + "=" + std::to_string(values[i]));
      const GpuSpec spec = load_gpu_spec_layered(options_.gpu, options_.config_files, sets);
      RunOptions run = options_.run;
      run.engine.threads = 1;
      run.engine.schedule = Schedule::kSeq;
      run.warn = nullptr;
      run.progress = nullptr;
      run.on_error = nullptr;
      double sum = 0;
      size_t n = 0;
      for (const FitTarget& target : targets_) {
        KernelSequence simulated;
        for (const std::string& trace : target.traces) {
          const auto source = open_trace(trace, nullptr, options_.partial);
          const SimulationReport report = simulate(*source, spec, run);
          for (const KernelReport& k : report.kernels) {
            if (k.truncated) throw std::runtime_error(trace + ": kernel " + std::to_string(k.kernel_id) + " cut short");
            simulated.kernels.push_back({k.name, trace + " kernel " + std::to_string(k.kernel_id),
                                         {{kCyclesCounter, double(k.cycles)}}});
          }
        }
        const KernelMatching matching = match_kernels(target.hardware, simulated);
        p.unmatched.insert(p.unmatched.end(), matching.unmatched.begin(), matching.unmatched.end());
        for (const KernelMatch& m : matching.pairs) {
          const KernelCounters& hw = target.hardware.kernels[m.hardware];
          const auto cycles = hardware_value(counter_pairs()[0], hw);
          if (!cycles || *cycles <= 0) continue;
          const double sim = *simulated.kernels[m.simulated].get(kCyclesCounter);
          p.kernels.push_back({simulated.kernels[m.simulated].name, hw.where, *cycles, sim});
          sum += std::fabs(sim - *cycles) / *cycles;
          ++n;
        }
      }
      if (!n) throw std::runtime_error("no simulated kernel matched a hardware kernel with cycles");
      p.error = 100.0 * sum / double(n);
    } catch (const std::exception& e) {
      p.error = std::numeric_limits<double>::infinity();
      p.failure = e.what();
    }
    return p;
  }

 private:
  const std::vector<FitTarget>& targets_;
  const FitOptions& options_;
};

}  // namespace

FitParameter parse_fit_parameter(const std::string& text) {
  const size_t eq = text.find('='), colon = text.find(':', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || colon == std::string::npos || eq == 0)
    throw std::invalid_argument("--param " + text + ": expected KEY=LOW:HIGH (e.g. l1d.hit_latency=10:60)");
  FitParameter p{text.substr(0, eq), parse_int(text.substr(eq + 1, colon - eq - 1), "--param " + text),
                 parse_int(text.substr(colon + 1), "--param " + text)};
  if (p.low > p.high) throw std::invalid_argument("--param " + text + ": LOW is above HIGH");
  return p;
}

FitResult fit_config(const std::vector<FitTarget>& targets, const FitOptions& options) {
  if (options.parameters.empty()) throw std::invalid_argument("no --param to fit");
  if (options.max_runs < 1) throw std::invalid_argument("--max-runs must be at least 1");
  const Evaluator evaluator(targets, options);
  const size_t keys = options.parameters.size();

  // The start: the base config's values, clamped into the ranges.
  const GpuSpec base = load_gpu_spec_layered(options.gpu, options.config_files, options.sets);
  std::vector<int64_t> x(keys), step(keys);
  for (size_t i = 0; i < keys; ++i) {
    const FitParameter& p = options.parameters[i];
    const std::string value = gpu_spec_value(base, p.key);
    x[i] = std::clamp(parse_int(value, p.key + " (its base value)"), p.low, p.high);
    step[i] = std::max<int64_t>(1, (p.high - p.low) / 4);
  }
  FitResult result;
  result.start = evaluator.evaluate(x);
  result.runs = 1;
  if (!std::isfinite(result.start.error))
    throw std::runtime_error("the start config cannot be evaluated: " + result.start.failure);
  result.best = result.start;

  std::map<std::vector<int64_t>, double> seen{{x, result.start.error}};
  tbb::task_arena arena(options.jobs ? int(options.jobs) : tbb::task_arena::automatic);
  while (result.best.error > 0) {  // an exact fit cannot be improved
    std::vector<std::vector<int64_t>> candidates;
    for (size_t i = 0; i < keys; ++i)
      for (int64_t direction : {-1, +1}) {
        std::vector<int64_t> y = x;
        y[i] = std::clamp(x[i] + direction * step[i], options.parameters[i].low, options.parameters[i].high);
        if (y != x && !seen.count(y) && std::find(candidates.begin(), candidates.end(), y) == candidates.end())
          candidates.push_back(std::move(y));
      }
    if (result.runs + candidates.size() > options.max_runs) break;
    std::vector<FitPoint> points(candidates.size());
    arena.execute([&] {
      tbb::parallel_for(size_t(0), candidates.size(), [&](size_t c) { points[c] = evaluator.evaluate(candidates[c]); });
    });
    result.runs += candidates.size();
    ++result.rounds;
    size_t best = points.size();
    for (size_t c = 0; c < points.size(); ++c) {
      seen[points[c].values] = points[c].error;
      if (points[c].error < (best == points.size() ? result.best.error : points[best].error)) best = c;
    }
    if (best < points.size()) {
      result.best = std::move(points[best]);
      x = result.best.values;
      continue;
    }
    if (std::all_of(step.begin(), step.end(), [](int64_t s) { return s == 1; })) {
      result.converged = true;
      break;
    }
    for (int64_t& s : step) s = std::max<int64_t>(1, s / 2);
  }
  if (result.best.error == 0) result.converged = true;
  return result;
}

}  // namespace lockstep::validate
