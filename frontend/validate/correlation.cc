#include "frontend/validate/correlation.h"

#include <algorithm>
#include <cstdio>

#include "frontend/sweep/gnuplot.h"
#include "parallel/stats_csv.h"
#include "frontend/validate/error_measures.h"

namespace lockstep::validate {
namespace {

std::string format(const char* spec, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}
std::string number_text(double v) { return v >= 0 && v < 1e15 && v == double(uint64_t(v)) ? format("%.0f", v) : format("%.6g", v); }
std::string optional_text(const std::optional<double>& v, const char* spec) { return v ? format(spec, *v) : "-"; }

std::string error_text(const CounterComparison& c) {
  if (!c.error) return "-";
  return c.pair->measure == ErrorMeasure::kMeanAbsolutePct ? format("MAE %.2f%%", *c.error) : format("NRMSE %.3f", *c.error);
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += csv_field(cells[i]);
  }
  return out + "\n";
}

std::string short_name(const std::string& name, size_t width) {
  return name.size() > width ? name.substr(0, width - 3) + "..." : name;
}

}  // namespace

Correlation correlate(const KernelSequence& hw, const KernelSequence& sim) {
  Correlation out;
  out.hardware = &hw;
  out.simulated = &sim;
  out.matching = match_kernels(hw, sim);
  for (const CounterPair& pair : counter_pairs()) {
    CounterComparison c;
    c.pair = &pair;
    std::vector<double> h, s;
    for (size_t m = 0; m < out.matching.pairs.size(); ++m) {
      const auto hv = hardware_value(pair, hw.kernels[out.matching.pairs[m].hardware]);
      const auto sv = sim.kernels[out.matching.pairs[m].simulated].get(pair.counter);
      if (!hv || !sv) continue;
      c.points.push_back({m, *hv, *sv});
      h.push_back(*hv);
      s.push_back(*sv);
    }
    if (c.points.empty()) continue;
    c.error = pair.measure == ErrorMeasure::kMeanAbsolutePct ? mean_absolute_error_pct(h, s) : nrmse(h, s);
    c.pearson = pearson_r(h, s);
    c.within_10pct = count_within(h, s, 0.10);
    out.counters.push_back(std::move(c));
  }
  return out;
}

std::string counter_table_text(const Correlation& c) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "  %-58s %7s  %-14s %9s  %10s\n", "counter", "kernels", "error", "pearson r",
                "within 10%");
  out += line;
  for (const CounterComparison& k : c.counters) {
    std::snprintf(line, sizeof line, "  %-58s %7zu  %-14s %9s  %10s\n", k.pair->counter.c_str(), k.points.size(),
                  error_text(k).c_str(), optional_text(k.pearson, "%.4f").c_str(),
                  (std::to_string(k.within_10pct) + "/" + std::to_string(k.points.size())).c_str());
    out += line;
  }
  return out;
}

std::string counter_table_csv(const Correlation& c) {
  std::string out = csv_line({"counter", "kernels", "measure", "error", "pearson_r", "within_10pct"});
  for (const CounterComparison& k : c.counters)
    out += csv_line({k.pair->counter, std::to_string(k.points.size()),
                     k.pair->measure == ErrorMeasure::kMeanAbsolutePct ? "mae_pct" : "nrmse",
                     optional_text(k.error, "%.6f"), optional_text(k.pearson, "%.6f"), std::to_string(k.within_10pct)});
  return out;
}

std::string kernel_table_text(const Correlation& c) {
  std::string out;
  char line[512];
  for (const CounterComparison& k : c.counters) {
    out += "  " + k.pair->counter + "\n";
    std::snprintf(line, sizeof line, "    %4s  %-40s %16s %16s %10s\n", "#", "kernel", "hardware", "simulated", "error");
    out += line;
    for (const CounterComparison::Point& p : k.points) {
      const KernelMatch& m = c.matching.pairs[p.match];
      const KernelCounters& sim = c.simulated->kernels[m.simulated];
      const std::string& name = c.hardware->kernels[m.hardware].name.empty() ? sim.name : c.hardware->kernels[m.hardware].name;
      std::snprintf(line, sizeof line, "    %4zu  %-40s %16s %16s %10s\n", m.hardware + 1, short_name(name, 40).c_str(),
                    number_text(p.hardware).c_str(), number_text(p.simulated).c_str(),
                    optional_text(relative_error_pct(p.hardware, p.simulated), "%+.2f%%").c_str());
      out += line;
    }
  }
  return out;
}

std::string kernel_table_csv(const Correlation& c) {
  std::string out = csv_line({"hardware_launch", "hardware_kernel", "hardware_source", "simulated_kernel",
                              "simulated_source", "counter", "hardware", "simulated", "error_pct"});
  for (const CounterComparison& k : c.counters)
    for (const CounterComparison::Point& p : k.points) {
      const KernelMatch& m = c.matching.pairs[p.match];
      const KernelCounters& hw = c.hardware->kernels[m.hardware];
      const KernelCounters& sim = c.simulated->kernels[m.simulated];
      out += csv_line({std::to_string(m.hardware + 1), hw.name, hw.where, sim.name, sim.where, k.pair->counter,
                       number_text(p.hardware), number_text(p.simulated),
                       optional_text(relative_error_pct(p.hardware, p.simulated), "%.6f")});
    }
  return out;
}

std::string plot_file_name(const CounterComparison& counter) { return counter.pair->counter + ".png"; }

bool plot_counter(const CounterComparison& counter, const std::filesystem::path& png) {
  std::string data;
  size_t drawn = 0;
  double low = 0, high = 0;
  for (const CounterComparison::Point& p : counter.points) {
    if (p.hardware <= 0 || p.simulated <= 0) continue;
    data += format("%.17g", p.hardware) + "\t" + format("%.17g", p.simulated) + "\n";
    low = drawn ? std::min({low, p.hardware, p.simulated}) : std::min(p.hardware, p.simulated);
    high = drawn ? std::max({high, p.hardware, p.simulated}) : std::max(p.hardware, p.simulated);
    ++drawn;
  }
  if (!drawn) return false;
  // Both axes over the same range, a little wider than the points, so that y = x is the diagonal.
  low /= 2;
  high *= 2;
  const size_t zero = counter.points.size() - drawn;
  std::string title = counter.pair->counter + ": " + std::to_string(drawn) + " kernel(s), " + error_text(counter) +
                      ", r = " + optional_text(counter.pearson, "%.4f");
  if (zero) title += ", " + std::to_string(zero) + " with a zero value not drawn";
  sweep::GnuplotPlot plot;
  const std::filesystem::path file = plot.add_data("points.tsv", data);
  std::string range = "[";
  range += format("%.17g", low);
  range += ":";
  range += format("%.17g", high);
  range += "]";
  plot.render_png("set title " + sweep::gnuplot_quoted(title) + "\nset xlabel 'hardware'\nset ylabel 'simulated'\n" +
                      "set logscale xy\nset xrange " + range + "\nset yrange " + range + "\nset size square\n" +
                      "set grid\nset key top left\nset datafile separator '\\t'\n" + "plot " +
                      sweep::gnuplot_quoted(file.string()) +
                      " using 1:2 with points pointtype 7 pointsize 1.2 title 'kernels', x with lines dashtype 2 "
                      "title 'y = x'\n",
                  png, 700, 700);
  return true;
}

}  // namespace lockstep::validate
