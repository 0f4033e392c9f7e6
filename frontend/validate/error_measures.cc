#include "frontend/validate/error_measures.h"

#include <cmath>

namespace lockstep::validate {

std::optional<double> relative_error_pct(double hw, double sim) {
  if (hw == 0) return sim == 0 ? std::optional<double>(0.0) : std::nullopt;
  return 100.0 * (sim - hw) / std::fabs(hw);
}

std::optional<double> mean_absolute_error_pct(const std::vector<double>& hw, const std::vector<double>& sim) {
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < hw.size(); ++i) {
    if (hw[i] == 0) continue;
    sum += std::fabs(sim[i] - hw[i]) / std::fabs(hw[i]);
    ++n;
  }
  return n ? std::optional<double>(100.0 * sum / double(n)) : std::nullopt;
}

std::optional<double> nrmse(const std::vector<double>& hw, const std::vector<double>& sim) {
  if (hw.empty()) return std::nullopt;
  double squares = 0, mean = 0;
  for (size_t i = 0; i < hw.size(); ++i) {
    squares += (sim[i] - hw[i]) * (sim[i] - hw[i]);
    mean += hw[i];
  }
  mean /= double(hw.size());
  if (mean == 0) return std::nullopt;
  return std::sqrt(squares / double(hw.size())) / std::fabs(mean);
}

std::optional<double> pearson_r(const std::vector<double>& hw, const std::vector<double>& sim) {
  const size_t n = hw.size();
  if (n < 2) return std::nullopt;
  double mh = 0, ms = 0;
  for (size_t i = 0; i < n; ++i) {
    mh += hw[i];
    ms += sim[i];
  }
  mh /= double(n);
  ms /= double(n);
  double cov = 0, vh = 0, vs = 0;
  for (size_t i = 0; i < n; ++i) {
    cov += (hw[i] - mh) * (sim[i] - ms);
    vh += (hw[i] - mh) * (hw[i] - mh);
    vs += (sim[i] - ms) * (sim[i] - ms);
  }
  if (vh == 0 || vs == 0) return std::nullopt;
  return cov / std::sqrt(vh * vs);
}

size_t count_within(const std::vector<double>& hw, const std::vector<double>& sim, double fraction) {
  size_t n = 0;
  for (size_t i = 0; i < hw.size(); ++i) n += std::fabs(sim[i] - hw[i]) <= fraction * std::fabs(hw[i]);
  return n;
}

}  // namespace lockstep::validate
