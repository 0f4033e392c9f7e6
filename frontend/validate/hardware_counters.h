#pragma once
// Reading hardware counters: an Nsight Compute CSV (ncu_csv.h) or a plain
// ground-truth file of cycles as public trace sets ship it beside a trace
// (`gt`: whole numbers, one per kernel in launch order, no names; the
// counter is then gpc__cycles_elapsed.max only). A directory stands for the
// `gt` file inside it, so a trace directory can be named directly.
#include <string>
#include <vector>

#include "frontend/validate/kernel_counters.h"

namespace lockstep::validate {

// Throws std::runtime_error (one line: the file, the line, what is wrong).
KernelSequence read_gt_file(const std::string& path);

// A gt file (a directory, a file named gt, or a file holding whole numbers only) or else an
// Nsight Compute CSV, with the columns `metrics` (ncu_csv.h).
KernelSequence read_hardware_counters(const std::string& path, const std::vector<std::string>& metrics);

}  // namespace lockstep::validate
