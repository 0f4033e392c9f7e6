#pragma once
// Counters of a sequence of kernels in launch order, as a validation input
// holds them: hardware (an Nsight Compute CSV, a gt file) or simulated
// (lockstep stats JSON files). Values are doubles: hardware counters are
// averages and percentages as often as counts.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::validate {

struct KernelCounters {
  std::string name;   // as the source spells it; empty when it has none (a gt file)
  std::string where;  // for reports: "FILE row 4", "FILE kernel 2"
  std::map<std::string, double> counters;

  std::optional<double> get(const std::string& counter) const {
    const auto it = counters.find(counter);
    return it == counters.end() ? std::nullopt : std::optional<double>(it->second);
  }
};

struct KernelSequence {
  std::string description;  // "FILE (Nsight Compute CSV)", "2 stats file(s)"
  std::vector<KernelCounters> kernels;
};

}  // namespace lockstep::validate
