#pragma once
// `lockstep correlate`: hardware counters against simulated ones, kernel by
// kernel (kernel_matching.h), counter by counter (counter_pairs.h), with the
// error measures of error_measures.h; the tables as text and CSV and one
// scatter plot per counter.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frontend/validate/counter_pairs.h"
#include "frontend/validate/kernel_matching.h"

namespace lockstep::validate {

struct CounterComparison {
  const CounterPair* pair = nullptr;
  struct Point {
    size_t match = 0;  // index into KernelMatching::pairs
    double hardware = 0, simulated = 0;
  };
  std::vector<Point> points;        // the matched kernels with the counter on both sides
  std::optional<double> error;      // MAE % or NRMSE, as pair->measure says
  std::optional<double> pearson;
  size_t within_10pct = 0;
};

struct Correlation {
  const KernelSequence* hardware = nullptr;
  const KernelSequence* simulated = nullptr;
  KernelMatching matching;
  std::vector<CounterComparison> counters;  // the pairs with at least one kernel to compare, in counter_pairs() order
};

Correlation correlate(const KernelSequence& hardware, const KernelSequence& simulated);

// Per counter: counter, kernels, error (MAE % or NRMSE), Pearson r, kernels within 10%.
std::string counter_table_text(const Correlation& c);
std::string counter_table_csv(const Correlation& c);
// Per kernel and counter: hardware, simulated, error %.
std::string kernel_table_text(const Correlation& c);
std::string kernel_table_csv(const Correlation& c);

// The PNG file name of a counter's scatter plot: "<counter>.png".
std::string plot_file_name(const CounterComparison& counter);
// Hardware on x, simulated on y, log-log, the line y = x, one point per
// kernel (kernels with a zero value cannot be drawn on log axes and are
// counted in the title). Returns false, drawing nothing, when no kernel has
// both values above zero. Throws std::runtime_error when gnuplot fails.
bool plot_counter(const CounterComparison& counter, const std::filesystem::path& png);

}  // namespace lockstep::validate
