#pragma once
// --collect: the complete points' statistics in one table, one row per
// (trace, config, override, kernel) plus a "total" row per point, one column
// per counter; rows in plan order (traces x configs x overrides as the sweep
// file lists them), kernels in launch order, counters in first-seen order.
// --plot draws one counter's totals per trace, one series per config and
// override, with gnuplot.
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/sweep/sweep_dir.h"

namespace lockstep::sweep {

struct ResultTable {
  static constexpr size_t kKeyColumns = 5;  // trace, config, override, kernel, kernel_name
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // empty cell: the point has no such counter

  std::string csv() const;
};

struct CollectedResults {
  ResultTable table;
  std::vector<size_t> incomplete;  // points without a complete result
};

CollectedResults collect_results(const SweepDir& dir);

// Draws `counter` of the total rows into `png` (written to a temp name, then
// renamed). Throws std::runtime_error for an unknown counter or a gnuplot failure.
void plot_counter(const ResultTable& table, const std::string& counter, const std::filesystem::path& png);

}  // namespace lockstep::sweep
