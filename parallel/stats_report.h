#pragma once
// Statistics output: the human summary and the JSON file. Counter names follow
// Nsight Compute where a metric exists. Everything outside "run" is derived
// from integer counters only and is identical across runs, thread counts and
// schedules.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "parallel/simulation.h"

namespace lockstep {

// One row: name and value; integers stay exact, derived figures are doubles.
struct StatValue {
  std::string name;
  bool is_integer = true;
  uint64_t integer = 0;
  double real = 0;
};

std::vector<StatValue> kernel_stats(const SimulationReport& report, const KernelReport& kernel);
std::vector<StatValue> total_stats(const SimulationReport& report);

std::string stats_json(const SimulationReport& report);
void print_summary(std::FILE* out, const SimulationReport& report);
// Writes the JSON to `path` through a temporary file renamed on success.
void write_stats_json(const SimulationReport& report, const std::string& path);
// Writes `contents` to a temporary file beside `path` and renames it over
// `path`, so a failed or interrupted write never leaves a partial file.
void write_file_atomically(const std::string& path, const std::string& contents);

// Share of the run's wall time the leader spent waiting at the per-cycle join.
double handshake_wait_share(const SimulationReport& r);

}  // namespace lockstep
