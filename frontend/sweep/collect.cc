#include "frontend/sweep/collect.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>

#include "frontend/sweep/process.h"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace lockstep::sweep {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

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

// A scratch directory removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "lockstep-plot-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string gnuplot_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

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
  ScratchDir scratch;
  {
    std::ofstream data(scratch.path() / "data.tsv");
    data << "trace";
    for (const std::string& s : series) data << '\t' << s;
    data << '\n';
    for (const std::string& t : traces) {
      data << t;
      for (const std::string& s : series) {
        const auto v = value.find({t, s});
        data << '\t' << (v == value.end() || v->second.empty() ? "?" : v->second);
      }
      data << '\n';
    }
  }
  const fs::path tmp = png.string() + ".tmp-" + std::to_string(::getpid()) + ".png";
  {
    std::ofstream script(scratch.path() / "plot.gp");
    script << "set terminal png noenhanced size 900,500\n"
           << "set output " << gnuplot_quoted(tmp.string()) << "\n"
           << "set title " << gnuplot_quoted("lockstep sweep: " + counter + " (total per trace)") << "\n"
           << "set ylabel " << gnuplot_quoted(counter) << "\n"
           << "set datafile separator '\\t'\nset datafile missing '?'\n"
           << "set style data histograms\nset style histogram clustered gap 1\n"
           << "set style fill solid 0.8 border -1\nset key outside right top\nset yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\nset grid ytics\n"
           << "plot for [i=2:" << series.size() + 1 << "] " << gnuplot_quoted((scratch.path() / "data.tsv").string())
           << " using i:xtic(1) title columnheader(i)\n";
  }
  const ProcessResult r = run_captured({"gnuplot", (scratch.path() / "plot.gp").string()});
  if (r.exit_code != 0 || !fs::exists(tmp)) {
    fs::remove(tmp);
    std::string line = r.err.substr(0, r.err.find('\n'));
    throw std::runtime_error("gnuplot failed" + (line.empty() ? std::string() : ": " + line));
  }
  fs::rename(tmp, png);
}

}  // namespace lockstep::sweep
