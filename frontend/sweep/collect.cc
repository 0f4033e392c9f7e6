#include "frontend/sweep/collect.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "frontend/sweep/gnuplot.h"
#include "parallel/stats_csv.h"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace lockstep::sweep {
namespace {

std::string cell_of(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// Builds rows whose counter columns are added as they are first seen (numbers
// and strings only: an object such as "units" is not a counter).
class TableBuilder {
 public:
  TableBuilder() { table_.columns = {"trace", "config", "override", "kernel", "kernel_name"}; }

  void add_row(const SweepPoint& p, const std::string& kernel, const std::string& name, const json& stats) {
    std::vector<std::string> row = {p.trace, p.config, p.override_name, kernel, name};
    for (const auto& [counter, value] : stats.items()) {
      if (value.is_structured()) continue;  // not a counter: "units" (run --per-unit) in the total
      auto [it, added] = column_of_.emplace(counter, table_.columns.size());
      if (added) table_.columns.push_back(counter);
      if (row.size() <= it->second) row.resize(it->second + 1);
      row[it->second] = cell_of(value);
    }
    table_.rows.push_back(std::move(row));
  }
  ResultTable finish() {
    for (auto& row : table_.rows) row.resize(table_.columns.size());
    return std::move(table_);
  }

 private:
  ResultTable table_;
  std::map<std::string, size_t> column_of_;
};

}  // namespace

std::string ResultTable::csv() const {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) out += ',';
      out += csv_field(cells[i]);
    }
    out += "\n";
  };
  line(columns);
  for (const auto& row : rows) line(row);
  return out;
}

CollectedResults collect_results(const SweepDir& dir) {
  CollectedResults out;
  TableBuilder builder;
  for (size_t i = 0; i < dir.points().size(); ++i) {
    const std::optional<json> stats = read_stats_file(dir.stats_file(i));
    if (!stats) {
      out.incomplete.push_back(i);
      continue;
    }
    const SweepPoint& p = dir.points()[i];
    for (const json& k : (*stats)["kernels"])
      builder.add_row(p, cell_of(k.value("id", json())), k.value("name", std::string()), k.value("stats", json::object()));
    builder.add_row(p, "total", "", (*stats)["total"]);
  }
  out.table = builder.finish();
  return out;
}

void plot_counter(const ResultTable& table, const std::string& counter, const fs::path& png) {
  const auto col = std::find(table.columns.begin() + ResultTable::kKeyColumns, table.columns.end(), counter);
  if (col == table.columns.end())
    throw std::runtime_error("--plot: no counter '" + counter + "' in the results (" +
                             std::to_string(table.columns.size() - ResultTable::kKeyColumns) +
                             " counters, e.g. gpc__cycles_elapsed.max)");
  const size_t c = size_t(col - table.columns.begin());
  // One row per trace, one column per config/override, from the total rows.
  std::vector<std::string> traces, series;
  std::map<std::pair<std::string, std::string>, std::string> value;
  for (const auto& row : table.rows) {
    if (row[3] != "total") continue;
    const std::string s = row[1] + "/" + row[2];
    if (std::find(traces.begin(), traces.end(), row[0]) == traces.end()) traces.push_back(row[0]);
    if (std::find(series.begin(), series.end(), s) == series.end()) series.push_back(s);
    value[{row[0], s}] = row[c];
  }
  if (traces.empty()) throw std::runtime_error("--plot: no complete point to plot");
  std::string data = "trace";
  for (const std::string& s : series) data += '\t' + s;
  data += '\n';
  for (const std::string& t : traces) {
    data += t;
    for (const std::string& s : series) {
      const auto v = value.find({t, s});
      data += '\t' + (v == value.end() || v->second.empty() ? std::string("?") : v->second);
    }
    data += '\n';
  }
  GnuplotPlot plot;
  const fs::path data_file = plot.add_data("data.tsv", data);
  plot.render_png("set title " + gnuplot_quoted("lockstep sweep: " + counter + " (total per trace)") + "\n" +
                      "set ylabel " + gnuplot_quoted(counter) + "\n" +
                      "set datafile separator '\\t'\nset datafile missing '?'\n"
                      "set style data histograms\nset style histogram clustered gap 1\n"
                      "set style fill solid 0.8 border -1\nset key outside right top\nset yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\nset grid ytics\n"
                      "plot for [i=2:" + std::to_string(series.size() + 1) + "] " + gnuplot_quoted(data_file.string()) +
                      " using i:xtic(1) title columnheader(i)\n",
                  png, 900, 500);
}

}  // namespace lockstep::sweep
