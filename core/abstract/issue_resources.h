#pragma once
// The issue resources of each sub-core of an abstract-model SM, as the cycle
// model's SM has them: per unit class its pipelines (one that accepts an
// instruction at t accepts the next at t + initiation; the first free one
// takes it, as core/sm/execution_units.h) and the operand collector units (the
// first free one is busy 1 + the instruction's bank-conflict cycles, as
// core/sm/operand_collector.h). Kept with, per unit class and for the
// collectors, the first cycle one of them is free: whether a class can take
// an instruction at a cycle, and from when it can, is then a compare, not a
// walk over the pipelines and collectors. No allocation after construction.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "configs/spec/sm_spec.h"

namespace lockstep {

class IssueResources {
 public:
  explicit IssueResources(const SmSpec& spec);

  // Unit class `unit` of sub-core `sc` can take an instruction at `now`: a
  // pipeline of the class and a collector unit are free.
  bool unit_free(uint32_t sc, uint32_t unit, uint64_t now) const { return unit_free_from(sc, unit) <= now; }
  // The first cycle from which it can (as far as the issues so far go).
  uint64_t unit_free_from(uint32_t sc, uint32_t unit) const {
    return std::max(class_free_[size_t(sc) * classes_ + unit], collectors_free_[sc]);
  }
  // An instruction of class `unit` issues at `now` (unit_free() holds): it
  // enters the class's first free pipeline and the first free collector unit,
  // which it holds 1 + `conflict_cycles` cycles.
  void issue(uint32_t sc, uint32_t unit, uint64_t now, uint32_t conflict_cycles) {
    const Class& c = classes_info_[unit];
    uint64_t* pipes = &pipe_free_[size_t(sc) * pipes_ + c.first];
    class_free_[size_t(sc) * classes_ + unit] = take_first_free(pipes, c.pipes, now, now + c.initiation);
    collectors_free_[sc] = take_first_free(&collector_free_[size_t(sc) * collectors_], collectors_, now, now + 1 + conflict_cycles);
  }

 private:
  struct Class {
    uint32_t first = 0, pipes = 1, initiation = 1;
  };
  // The first of `n` resources free at `now` is busy until `until`; returns the first cycle one of them is free.
  static uint64_t take_first_free(uint64_t* free, uint32_t n, uint64_t now, uint64_t until) {
    uint32_t i = 0;
    while (free[i] > now) ++i;
    free[i] = until;
    uint64_t first = free[0];
    for (uint32_t j = 1; j < n; ++j) first = std::min(first, free[j]);
    return first;
  }

  uint32_t classes_ = 0, pipes_ = 0, collectors_ = 1;
  std::vector<Class> classes_info_;
  std::vector<uint64_t> pipe_free_;        // [sc * pipes_ + pipe]
  std::vector<uint64_t> class_free_;       // [sc * classes_ + class]: the earliest of its pipelines
  std::vector<uint64_t> collector_free_;   // [sc * collectors_ + unit]
  std::vector<uint64_t> collectors_free_;  // [sc]: the earliest of its collector units
};

inline IssueResources::IssueResources(const SmSpec& spec)
    : classes_(uint32_t(spec.units.size())), collectors_(std::max(spec.collector_units, 1u)) {
  for (const UnitSpec& u : spec.units) {
    classes_info_.push_back(Class{pipes_, std::max(u.per_subcore, 1u), u.initiation});
    pipes_ += classes_info_.back().pipes;
  }
  pipe_free_.assign(size_t(spec.subcores) * pipes_, 0);
  class_free_.assign(size_t(spec.subcores) * classes_, 0);
  collector_free_.assign(size_t(spec.subcores) * collectors_, 0);
  collectors_free_.assign(spec.subcores, 0);
}

}  // namespace lockstep
