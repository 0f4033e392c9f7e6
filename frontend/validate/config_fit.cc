#include "frontend/validate/config_fit.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
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
      double sum_abs = 0, sum_sq = 0;
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
          const double relative = (sim - *cycles) / *cycles;
          sum_abs += std::fabs(relative);
          sum_sq += relative * relative;
          ++n;
        }
      }
      if (!n) throw std::runtime_error("no simulated kernel matched a hardware kernel with cycles");
      p.error = 100.0 * std::sqrt(sum_sq / double(n));
      p.mean_abs_error = 100.0 * sum_abs / double(n);
    } catch (const std::exception& e) {
      p.error = p.mean_abs_error = std::numeric_limits<double>::infinity();
      p.failure = e.what();
    }
    return p;
  }

 private:
  const std::vector<FitTarget>& targets_;
  const FitOptions& options_;
};

// The least-squares solution d of J d = -r (J: kernels x keys, columns of
// keys whose probes changed nothing left out), by the normal equations with
// partial pivoting; nullopt when they are singular.
std::optional<std::vector<double>> least_squares(const std::vector<std::vector<double>>& jacobian,
                                                 const std::vector<double>& residual, const std::vector<bool>& used) {
  const size_t n = used.size(), m = residual.size();
  std::vector<size_t> cols;
  for (size_t j = 0; j < n; ++j)
    if (used[j]) cols.push_back(j);
  const size_t k = cols.size();
  if (!k) return std::nullopt;
  // [JᵀJ | -Jᵀr], row by row.
  const size_t w = k + 1;
  std::vector<double> a;
  a.reserve(n * (n + 1));
  for (size_t r = 0; r < k; ++r) {
    for (size_t c = 0; c < k; ++c) {
      double sum = 0;
      for (size_t e = 0; e < m; ++e) sum += jacobian[e][cols[r]] * jacobian[e][cols[c]];
      a.push_back(sum);
    }
    double rhs = 0;
    for (size_t e = 0; e < m; ++e) rhs -= jacobian[e][cols[r]] * residual[e];
    a.push_back(rhs);
  }
  auto at = [&](size_t r, size_t c) -> double& { return a[r * w + c]; };
  for (size_t c = 0; c < k; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < k; ++r)
      if (std::fabs(at(r, c)) > std::fabs(at(pivot, c))) pivot = r;
    if (std::fabs(at(pivot, c)) < 1e-18) return std::nullopt;
    for (size_t q = 0; q < w; ++q) std::swap(at(c, q), at(pivot, q));
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = at(r, c) / at(c, c);
      for (size_t q = c; q < w; ++q) at(r, q) -= f * at(c, q);
    }
  }
  std::vector<double> d(n, 0.0);
  for (size_t r = 0; r < k; ++r) d[cols[r]] = at(r, k) / at(r, r);
  return d;
}

// The Gauss-Newton step from `at`, with each key's slopes from its probes
// below and above (either may be missing: at a range end, or run before).
std::optional<std::vector<int64_t>> gauss_newton_step(const FitPoint& at, const std::vector<const FitPoint*>& below,
                                                      const std::vector<const FitPoint*>& above,
                                                      const std::vector<FitParameter>& params) {
  const size_t keys = params.size(), kernels = at.kernels.size();
  auto relative = [](const FitPoint::Kernel& k) { return (k.simulated - k.hardware) / k.hardware; };
  std::vector<double> residual(kernels);
  for (size_t e = 0; e < kernels; ++e) residual[e] = relative(at.kernels[e]);
  std::vector<std::vector<double>> jacobian(kernels, std::vector<double>(keys, 0.0));
  std::vector<bool> used(keys, false);
  for (size_t i = 0; i < keys; ++i) {
    const FitPoint* lo = below[i] && std::isfinite(below[i]->error) ? below[i] : nullptr;
    const FitPoint* hi = above[i] && std::isfinite(above[i]->error) ? above[i] : nullptr;
    const FitPoint& a = lo ? *lo : at;
    const FitPoint& b = hi ? *hi : at;
    if (&a == &b || a.kernels.size() != kernels || b.kernels.size() != kernels) continue;
    const double span = double(b.values[i] - a.values[i]);
    for (size_t e = 0; e < kernels; ++e) {
      jacobian[e][i] = (relative(b.kernels[e]) - relative(a.kernels[e])) / span;
      if (jacobian[e][i] != 0) used[i] = true;
    }
  }
  const std::optional<std::vector<double>> d = least_squares(jacobian, residual, used);
  if (!d) return std::nullopt;
  std::vector<int64_t> y = at.values;
  for (size_t i = 0; i < keys; ++i) {
    const double target = std::clamp(double(at.values[i]) + (*d)[i], double(params[i].low), double(params[i].high));
    y[i] = int64_t(std::llround(target));
  }
  if (y == at.values) return std::nullopt;
  return y;
}

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
  const std::vector<FitParameter>& params = options.parameters;
  const size_t keys = params.size();

  // The start: the base config's values, clamped into the ranges.
  const GpuSpec base = load_gpu_spec_layered(options.gpu, options.config_files, options.sets);
  std::vector<int64_t> x(keys), first_step(keys);
  for (size_t i = 0; i < keys; ++i) {
    const FitParameter& p = params[i];
    const std::string value = gpu_spec_value(base, p.key);
    x[i] = std::clamp(parse_int(value, p.key + " (its base value)"), p.low, p.high);
    first_step[i] = std::max<int64_t>(1, (p.high - p.low) / 4);
  }
  std::vector<int64_t> step = first_step;
  FitResult result;
  result.start = evaluator.evaluate(x);
  result.runs = 1;
  if (!std::isfinite(result.start.error))
    throw std::runtime_error("the start config cannot be evaluated: " + result.start.failure);
  result.best = result.start;

  std::set<std::vector<int64_t>> seen{x};
  tbb::task_arena arena(options.jobs ? int(options.jobs) : tbb::task_arena::automatic);
  // Runs the new points among `candidates` in parallel (in order, without
  // repeats); false when they would exceed the run budget.
  auto run_all = [&](std::vector<std::vector<int64_t>> candidates, std::vector<FitPoint>& points) {
    std::vector<std::vector<int64_t>> fresh;
    for (std::vector<int64_t>& y : candidates)
      if (!seen.count(y) && std::find(fresh.begin(), fresh.end(), y) == fresh.end()) fresh.push_back(std::move(y));
    if (result.runs + fresh.size() > options.max_runs) return false;
    const size_t first = points.size();
    points.resize(first + fresh.size());
    arena.execute([&] {
      tbb::parallel_for(size_t(0), fresh.size(), [&](size_t c) { points[first + c] = evaluator.evaluate(fresh[c]); });
    });
    for (const std::vector<int64_t>& y : fresh) seen.insert(y);
    result.runs += fresh.size();
    return true;
  };

  while (result.best.error > 0) {  // an exact fit cannot be improved
    // 1. Probes: one step below and above per key.
    std::vector<std::vector<int64_t>> probes;
    std::vector<size_t> probe_key;
    for (size_t i = 0; i < keys; ++i)
      for (int64_t direction : {-1, +1}) {
        std::vector<int64_t> y = x;
        y[i] = std::clamp(x[i] + direction * step[i], params[i].low, params[i].high);
        if (y != x) {
          probes.push_back(std::move(y));
          probe_key.push_back(i);
        }
      }
    std::vector<FitPoint> points;
    if (!run_all(probes, points)) break;
    ++result.rounds;
    // A probe already run in an earlier round is not in `points`: only this
    // round's runs inform the moves.
    std::vector<const FitPoint*> below(keys, nullptr), above(keys, nullptr);
    for (const FitPoint& pt : points)
      for (size_t i = 0; i < keys; ++i) {
        std::vector<int64_t> d = pt.values;
        d[i] = x[i];
        if (d != x || pt.values[i] == x[i]) continue;
        (pt.values[i] < x[i] ? below : above)[i] = &pt;
      }
    // 2. Moves: every improving key at once, and the Gauss-Newton step.
    std::vector<bool> improved(keys, false);
    std::vector<int64_t> combined = x;
    size_t improving_keys = 0;
    for (size_t i = 0; i < keys; ++i) {
      const FitPoint* better = nullptr;
      for (const FitPoint* pt : {below[i], above[i]})
        if (pt && pt->error < result.best.error && (!better || pt->error < better->error)) better = pt;
      if (!better) continue;
      improved[i] = true;
      combined[i] = better->values[i];
      ++improving_keys;
    }
    std::vector<std::vector<int64_t>> moves;
    if (improving_keys > 1) moves.push_back(combined);
    if (std::optional<std::vector<int64_t>> gn = gauss_newton_step(result.best, below, above, params)) moves.push_back(*gn);
    const bool moves_ran = run_all(moves, points);

    size_t best = points.size();
    for (size_t c = 0; c < points.size(); ++c)
      if (points[c].error < (best == points.size() ? result.best.error : points[best].error)) best = c;
    for (size_t i = 0; i < keys; ++i)
      if (!improved[i]) step[i] = std::max<int64_t>(1, step[i] / 2);
    if (best < points.size()) {
      result.best = std::move(points[best]);
      x = result.best.values;
      if (!moves_ran) break;
      continue;
    }
    if (!moves_ran) break;
    if (std::all_of(step.begin(), step.end(), [](int64_t s) { return s == 1; }) &&
        std::none_of(improved.begin(), improved.end(), [](bool b) { return b; })) {
      if (result.restarted) {
        result.converged = true;
        break;
      }
      // The restart: smaller steps than the first ones, from the best point.
      result.restarted = true;
      for (size_t i = 0; i < keys; ++i) step[i] = std::max<int64_t>(1, first_step[i] / 8);
    }
  }
  if (result.best.error == 0) result.converged = true;
  return result;
}

}  // namespace lockstep::validate
