#include "parallel/sm_models.h"

#include <array>
#include <stdexcept>

#include "core/sm.h"

namespace lockstep {
namespace {

std::unique_ptr<SmModel> build_cycle(uint32_t id, const SmSpec& spec) { return std::make_unique<Sm>(id, spec); }

constexpr std::array<SmModelEntry, 1> kModels{{
    {"cycle", "every stage of the SM, cycle by cycle", build_cycle},
}};

}  // namespace

std::span<const SmModelEntry> sm_models() { return kModels; }

std::unique_ptr<SmModel> build_sm_model(const std::string& name, uint32_t id, const SmSpec& spec) {
  std::string known;
  for (const SmModelEntry& m : kModels) {
    if (name == m.name) return m.build(id, spec);
    known += std::string(known.empty() ? "" : ", ") + m.name;
  }
  throw std::invalid_argument("unknown SM model '" + name + "' (known: " + known + ")");
}

}  // namespace lockstep
