#pragma once
// The timing models `lockstep run --model NAME` can run, by name: one
// explicit table (run_models.cc), each entry a runner that fills the same
// SimulationReport with the counters it measures.
//   cycle     the cycle model: every stage of every SM and the memory system, cycle by cycle
//   abstract  GATSim-style: basic blocks pre-characterised on the cycle model's
//             SM, then only the warp scheduling simulated (parallel/abstract_model_run.h)
#include <span>
#include <string>

#include "parallel/simulation.h"

namespace lockstep {

struct RunModelEntry {
  const char* name;
  const char* description;
  SimulationReport (*run)(TraceSource& trace, const GpuSpec& spec, const RunOptions& options);
};

std::span<const RunModelEntry> run_models();
// The model called `name`; throws std::invalid_argument listing the known names.
const RunModelEntry& find_run_model(const std::string& name);

}  // namespace lockstep
