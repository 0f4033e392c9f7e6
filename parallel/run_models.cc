#include "parallel/run_models.h"

#include <array>
#include <stdexcept>

#include "parallel/abstract_model_run.h"

namespace lockstep {
namespace {

constexpr std::array<RunModelEntry, 2> kModels{{
    {"cycle", "every stage of every SM and the memory system, cycle by cycle", run_cycle},
    {"abstract", "pre-characterised basic blocks, only the warp scheduling simulated", run_abstract},
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
