#include "parallel/stats_csv.h"

#include <algorithm>

#include "parallel/stats_report.h"

namespace lockstep {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string stats_csv(const SimulationReport& report) {
  struct Row {
    std::string kernel, name;
    std::vector<StatValue> stats;
  };
  std::vector<Row> rows;
  for (const KernelReport& k : report.kernels)
    rows.push_back({std::to_string(k.kernel_id), k.name, kernel_stats(report, k)});
  rows.push_back({"total", "", total_stats(report)});

  std::vector<std::string> columns;
  for (const Row& r : rows)
    for (const StatValue& v : r.stats)
      if (std::find(columns.begin(), columns.end(), v.name) == columns.end()) columns.push_back(v.name);

  std::string out = "kernel,name";
  for (const std::string& c : columns) {
    out += ',';
    out += csv_field(c);
  }
  out += "\n";
  for (const Row& r : rows) {
    out += r.kernel + "," + csv_field(r.name);
    for (const std::string& c : columns) {
      out += ",";
      auto it = std::find_if(r.stats.begin(), r.stats.end(), [&](const StatValue& v) { return v.name == c; });
      if (it != r.stats.end()) out += stat_text(*it);
    }
    out += "\n";
  }
  return out;
}

}  // namespace lockstep
