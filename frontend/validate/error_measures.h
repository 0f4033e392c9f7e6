#pragma once
// Error and correlation of simulated values against hardware ones, over the
// kernels compared (Accel-Sim, ISCA 2020, §V):
//   mean absolute error   100 x mean(|sim - hw| / hw), over kernels with hw != 0
//   NRMSE                 sqrt(mean((sim - hw)^2)) / mean(hw)
//   Pearson r             covariance / (sd(hw) x sd(sim))
//   within 10%            |sim - hw| <= 0.1 x |hw|
// A figure that is undefined (no kernel, a zero mean, a constant side) is nullopt.
#include <cstddef>
#include <optional>
#include <vector>

namespace lockstep::validate {

// 100 x (sim - hw) / hw; 0 when both are 0; nullopt when only hw is.
std::optional<double> relative_error_pct(double hardware, double simulated);

std::optional<double> mean_absolute_error_pct(const std::vector<double>& hardware, const std::vector<double>& simulated);
std::optional<double> nrmse(const std::vector<double>& hardware, const std::vector<double>& simulated);
std::optional<double> pearson_r(const std::vector<double>& hardware, const std::vector<double>& simulated);
size_t count_within(const std::vector<double>& hardware, const std::vector<double>& simulated, double fraction);

}  // namespace lockstep::validate
