#include "frontend/validate/ncu_csv.h"

#include <csv.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace lockstep::validate {
namespace {

struct RecordCollector {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> fields;

  static void on_field(void* data, size_t size, void* self) {
    static_cast<RecordCollector*>(self)->fields.emplace_back(static_cast<const char*>(data), size);
  }
  static void on_record(int, void* self) {
    auto* c = static_cast<RecordCollector*>(self);
    c->records.push_back(std::move(c->fields));
    c->fields.clear();
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path + ": read failed");
  return text.str();
}

// Where the header line starts: the first line whose fields include "ID" and "Kernel Name".
size_t header_offset(const std::string& text, const std::string& path) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string line = text.substr(pos, end - pos);
    if (line.find("Kernel Name") != std::string::npos) {
      try {
        const auto records = parse_csv_records(line, path);
        if (records.size() == 1) {
          const auto& f = records[0];
          if (std::count(f.begin(), f.end(), "ID") && std::count(f.begin(), f.end(), "Kernel Name")) return pos;
        }
      } catch (const std::runtime_error&) {
        // not the header: application output that happens to mention it
      }
    }
    pos = end + 1;
  }
  throw std::runtime_error(path + ": no Nsight Compute CSV header (a line with the columns \"ID\" and \"Kernel Name\"; "
                                  "write it with ncu --csv --page raw)");
}

// "1,234.5" -> 1234.5; nullopt for an empty or "n/a" cell; throws on anything else.
std::optional<double> parse_number(std::string text, const std::string& where) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  while (!text.empty() && text.back() == ' ') text.pop_back();
  while (!text.empty() && text.front() == ' ') text.erase(text.begin());
  if (text.empty() || text == "n/a" || text == "N/A") return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
    throw std::runtime_error(where + ": '" + text + "' is not a number");
  return v;
}

// The factor a unit's SI prefix stands for: "Kcycle" 1e3, "Msector" 1e6; 1 otherwise.
double unit_scale(const std::string& unit) {
  if (unit.size() < 2 || !std::islower(static_cast<unsigned char>(unit[1]))) return 1;
  switch (unit[0]) {
    case 'K': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    default: return 1;
  }
}

}  // namespace

std::vector<std::vector<std::string>> parse_csv_records(const std::string& text, const std::string& what) {
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) throw std::runtime_error(what + ": cannot start the CSV parser");
  RecordCollector collector;
  const size_t used = csv_parse(&parser, text.data(), text.size(), RecordCollector::on_field,
                                RecordCollector::on_record, &collector);
  const bool ok = used == text.size() && csv_fini(&parser, RecordCollector::on_field, RecordCollector::on_record,
                                                  &collector) == 0;
  const int error = csv_error(&parser);
  csv_free(&parser);
  if (!ok) {
    // The record the parser stopped in, counted from 1.
    const size_t line = 1 + size_t(std::count(text.begin(), text.begin() + std::min(used, text.size()), '\n'));
    throw std::runtime_error(what + ": malformed CSV near line " + std::to_string(line) + " (" + csv_strerror(error) + ")");
  }
  return std::move(collector.records);
}

KernelSequence read_ncu_csv(const std::string& path, const std::vector<std::string>& metrics) {
  const std::string text = read_file(path);
  const size_t start = header_offset(text, path);
  const size_t header_line = 1 + size_t(std::count(text.begin(), text.begin() + start, '\n'));
  const auto records = parse_csv_records(text.substr(start), path);
  const std::vector<std::string>& header = records.at(0);
  auto column = [&](const std::string& name) -> std::optional<size_t> {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? std::nullopt : std::optional<size_t>(size_t(it - header.begin()));
  };
  const size_t name_col = *column("Kernel Name"), id_col = *column("ID");
  std::vector<std::pair<std::string, size_t>> metric_cols;
  for (const std::string& m : metrics)
    if (const auto c = column(m)) metric_cols.emplace_back(m, *c);
  // The units row: right after the header, no ID.
  size_t first = 1;
  std::vector<double> scale(header.size(), 1.0);
  if (records.size() > 1 && records[1].size() == header.size() && records[1][id_col].empty()) {
    for (size_t c = 0; c < header.size(); ++c) scale[c] = unit_scale(records[1][c]);
    first = 2;
  }
  KernelSequence out;
  out.description = path + " (Nsight Compute CSV)";
  for (size_t r = first; r < records.size(); ++r) {
    const auto& row = records[r];
    const std::string where = path + " line " + std::to_string(header_line + r);
    if (row.size() == 1 && row[0].empty()) continue;  // a blank line
    if (row.size() != header.size())
      throw std::runtime_error(where + ": " + std::to_string(row.size()) + " fields, the header has " +
                               std::to_string(header.size()));
    KernelCounters k;
    k.name = row[name_col];
    k.where = where + " (ID " + row[id_col] + ")";
    for (const auto& [metric, c] : metric_cols)
      if (const auto v = parse_number(row[c], where + ", column " + metric)) k.counters[metric] = *v * scale[c];
    out.kernels.push_back(std::move(k));
  }
  if (out.kernels.empty()) throw std::runtime_error(path + ": no kernel rows after the header");
  return out;
}

}  // namespace lockstep::validate
