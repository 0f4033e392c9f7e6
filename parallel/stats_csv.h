#pragma once
// The statistics as CSV: one row per kernel and a last row "total", one
// column per counter (the union of the kernels' and the total's counters, in
// the order stats_report.h lists them; a cell is empty where a row has no such
// counter). Kernel names are quoted as RFC 4180 says (they hold commas).
#include <string>

#include "parallel/simulation.h"

namespace lockstep {

std::string stats_csv(const SimulationReport& report);

// One CSV field: as it is, or in double quotes (quotes doubled) when it holds
// a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& s);

}  // namespace lockstep
