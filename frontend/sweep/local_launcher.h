#pragma once
// --launcher local: the sweep's points run on this machine, `jobs` at a time,
// each its own `lockstep run` child, with a progress line on stderr.
#include <vector>

#include "frontend/sweep/sweep_dir.h"

namespace lockstep::sweep {

// Runs `points` (indices into dir.points()); returns those that failed.
std::vector<size_t> run_local(const SweepDir& dir, const std::vector<size_t>& points, unsigned jobs);

}  // namespace lockstep::sweep
