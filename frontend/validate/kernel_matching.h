#pragma once
// Pairing hardware kernels with simulated ones. With names on both sides:
// by name and launch order, the k-th kernel of a name on one side with the
// k-th of that name on the other; names are compared by their base (the
// function's own name: a mangled name is demangled, then the return type,
// scopes, template arguments and parameter list are dropped), since Nsight
// Compute prints demangled or base names and traces carry mangled ones.
// Without hardware names (a gt file): by launch order alone.
#include <string>
#include <vector>

#include "frontend/validate/kernel_counters.h"

namespace lockstep::validate {

struct KernelMatch {
  size_t hardware = 0, simulated = 0;  // indices into the two sequences
};

struct KernelMatching {
  std::vector<KernelMatch> pairs;      // in the hardware's launch order
  std::vector<std::string> unmatched;  // one line per kernel left without a partner, saying why
  bool by_name = true;
};

KernelMatching match_kernels(const KernelSequence& hardware, const KernelSequence& simulated);

// "_Z6vecAddPfS_S_i" and "void vecAdd(float*, float*, float*, int)" -> "vecAdd".
std::string base_kernel_name(const std::string& name);

}  // namespace lockstep::validate
