#pragma once
// The SM models a GPU can be built with, by name: one explicit table
// (sm_models.cc), each entry a factory of one SM. The block dispatcher and
// the cycle engine see an SM only through core/sm_model.h.
//   cycle    the cycle model: fetch, schedulers, scoreboard, collectors, units, LD/ST (core/sm.h)
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "configs/spec/sm_spec.h"
#include "core/sm_model.h"

namespace lockstep {

struct SmModelEntry {
  const char* name;
  const char* description;
  std::unique_ptr<SmModel> (*build)(uint32_t id, const SmSpec& spec);
};

std::span<const SmModelEntry> sm_models();
// SM `id` of the model called `name`; throws std::invalid_argument naming the known ones.
std::unique_ptr<SmModel> build_sm_model(const std::string& name, uint32_t id, const SmSpec& spec);

}  // namespace lockstep
