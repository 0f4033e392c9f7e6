#pragma once
// Statistics output: the human summary and the JSON file. Counter names follow
// Nsight Compute where a metric exists. A report holds only the counters its
// model measures (SimulationReport::measured): the memory model's has no
// cycle, IPC, stall or timed counter, and its JSON says "model": "memory" at
// the top level (a file without "model" is the cycle model's) and leaves the
// engine's figures out of "run". With per-unit statistics
// (SimulationReport::per_unit) each kernel object and the "total" object also
// hold "units": the SMs' raw counters as "cluster<c>.sm<id>" (c = id /
// gpu.sms_per_cluster), by id, then the memory instances' in the memory
// model's order. Everything outside "run" is derived
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

// The value as every output prints it: an integer exactly, a double with 6 decimals.
std::string stat_text(const StatValue& value);

std::vector<StatValue> kernel_stats(const SimulationReport& report, const KernelReport& kernel);
std::vector<StatValue> total_stats(const SimulationReport& report);

// What produced a report, recorded in the JSON as "producer".
struct RunProvenance {
  std::string trace;                // the trace as given to the command, made absolute
  std::string gpu_config;           // --gpu NAME or --config FILE as resolved ("" = none given)
  std::vector<std::string> sets;    // every --set, in order
  std::string model = "cycle";      // the model (RunOptions::model)
  std::string command_line;         // the command, shell-quoted
};

std::string stats_json(const SimulationReport& report, const RunProvenance& provenance = {});
void print_summary(std::FILE* out, const SimulationReport& report);
// Writes the JSON to the output `path` (frontend/io/output_file.h: "-", devices, symlinks).
void write_stats_json(const SimulationReport& report, const RunProvenance& provenance, const std::string& path);

// Share of the run's wall time the leader spent waiting at the per-cycle join.
double handshake_wait_share(const SimulationReport& r);

}  // namespace lockstep
