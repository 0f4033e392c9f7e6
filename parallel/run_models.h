#pragma once
// The models a run can use, by name (RunOptions::model, `lockstep run
// --model NAME`): one explicit table (run_models.cc), each entry a runner
// that simulates the whole trace and fills the same report. A model's report
// carries only the counters it measures (SimulationReport::measured).
//   cycle   the cycle model: SMs, memory system and DRAM cycle by cycle (parallel/gpu.h)
//   memory  the cache-functional memory model: L1, L2 and DRAM sectors, no timing (memsys/functional/)
//   abstract GATSim-style: basic blocks pre-characterised on the cycle model's
//            SM, then only the warp scheduling simulated (parallel/abstract_model_run.h)
#include <span>
#include <string>

#include "configs/spec/gpu_spec.h"
#include "frontend/trace/trace_source.h"
#include "parallel/run_options.h"
#include "parallel/simulation.h"

namespace lockstep {

using ModelRunner = SimulationReport (*)(TraceSource& trace, const GpuSpec& spec, const RunOptions& options);

struct RunModelEntry {
  const char* name;
  const char* description;
  ModelRunner run;
};

// The runners, each beside its model.
SimulationReport run_cycle(TraceSource& trace, const GpuSpec& spec, const RunOptions& options);   // cycle_model_run.cc
SimulationReport run_memory(TraceSource& trace, const GpuSpec& spec, const RunOptions& options);  // memory_model_run.cc

std::span<const RunModelEntry> run_models();
// The model called `name`; throws std::invalid_argument "unknown model 'x' (known: cycle, memory, abstract)".
const RunModelEntry& find_run_model(const std::string& name);

}  // namespace lockstep
