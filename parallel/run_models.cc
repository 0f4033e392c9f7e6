#include "parallel/run_models.h"

#include <array>
#include <stdexcept>

#include "parallel/abstract_model_run.h"

namespace lockstep {
namespace {

constexpr std::array<RunModelEntry, 3> kModels{{
    {"cycle", "cycle-level SMs, interconnect, L2 and DRAM: cycles, IPC, stalls and every counter", run_cycle},
    {"memory", "cache-functional L1/L2/DRAM without timing: sector, hit and DRAM counters only", run_memory},
    {"abstract", "pre-characterised basic blocks, only the warp scheduling simulated: cycles, IPC, instructions",
     run_abstract},
}};

}  // namespace

std::span<const RunModelEntry> run_models() { return kModels; }

const RunModelEntry& find_run_model(const std::string& name) {
  std::string known;
  for (const RunModelEntry& m : kModels) {
    if (name == m.name) return m;
    known += std::string(known.empty() ? "" : ", ") + m.name;
  }
  throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
}

}  // namespace lockstep
