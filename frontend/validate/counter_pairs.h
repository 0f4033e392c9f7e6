#pragma once
// The counters `lockstep correlate` compares: the pairs Accel-Sim's
// correlator uses, each under the Nsight Compute name lockstep prints (its
// stats JSON), with the ncu metrics that measure it on the GPU.
#include <optional>
#include <string>
#include <vector>

#include "frontend/validate/kernel_counters.h"

namespace lockstep::validate {

inline constexpr const char* kCyclesCounter = "gpc__cycles_elapsed.max";

// How a counter's error is summed up over kernels (Accel-Sim, ISCA 2020, §V):
// the mean absolute percentage error for counters that are never zero
// (cycles, instructions, IPC), the normalised root-mean-square error for the rest.
enum class ErrorMeasure { kMeanAbsolutePct, kNrmse };

struct CounterPair {
  std::string counter;                // lockstep's name (stats JSON)
  std::vector<std::string> hardware;  // ncu metrics measuring it, the first present is used
  ErrorMeasure measure = ErrorMeasure::kNrmse;
  bool derived_ipc = false;           // hardware: instructions / cycles of the kernel
};

// In the order the reports print them.
const std::vector<CounterPair>& counter_pairs();

// Every ncu column any pair reads.
std::vector<std::string> hardware_metrics();

// The pair's hardware value for one kernel; nullopt when the kernel lacks it.
std::optional<double> hardware_value(const CounterPair& pair, const KernelCounters& kernel);

}  // namespace lockstep::validate
