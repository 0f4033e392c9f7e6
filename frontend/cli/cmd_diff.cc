// lockstep diff A.json B.json [--tolerance REL]
// Compares two statistics files of `lockstep run --stats-json`: kernels matched
// by id, then the totals, then (when both files have them, `run --per-unit`)
// the per-unit counters matched by unit name; prints every counter that
// differs with its relative difference, largest first. Exit status: 0
// identical, 1 different, 2 error.
#include <boost/program_options.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/validate/stats_files.h"

namespace po = boost::program_options;
using nlohmann::json;

namespace lockstep::cli {
namespace {

// One statistics file: counters per kernel id and the totals, and per unit
// when it has them ("units": {unit name: {counters}}; null when not).
struct StatsFile {
  struct Kernel {
    std::string name;
    json stats, units;
  };
  std::string path;
  std::string producer;  // the command line that wrote it, if recorded
  std::map<uint64_t, Kernel> kernels;  // by id
  json total, total_units;
  bool has_units() const { return !total_units.is_null(); }
};

StatsFile read_stats_file(const std::string& path) {
  const json doc = validate::read_json_file(path);
  auto bad = [&](const std::string& what) { return std::runtime_error(path + ": not a lockstep statistics file: " + what); };
  if (!doc.is_object() || !doc.contains("kernels") || !doc["kernels"].is_array()) throw bad("no \"kernels\" array");
  if (!doc.contains("total") || !doc["total"].is_object()) throw bad("no \"total\" object");
  // "units": an object of objects, per kernel and inside "total" (run --per-unit).
  auto units_of = [&](const json& holder, const std::string& where) {
    if (!holder.contains("units")) return json();
    const json& units = holder["units"];
    bool ok = units.is_object();
    for (auto it = units.begin(); ok && it != units.end(); ++it) ok = it->is_object();
    if (!ok) throw bad(where + ": \"units\" is not an object of per-unit counter objects");
    return units;
  };
  StatsFile f;
  f.path = path;
  f.total = doc["total"];
  f.total_units = units_of(f.total, "the total");
  f.total.erase("units");
  if (doc.contains("producer") && doc["producer"].is_object() && doc["producer"].value("command_line", json()).is_string())
    f.producer = doc["producer"]["command_line"].get<std::string>();
  for (const json& k : doc["kernels"]) {
    if (!k.is_object() || !k.contains("id") || !k["id"].is_number_unsigned() || !k.contains("stats") ||
        !k["stats"].is_object())
      throw bad("a kernel without a numeric \"id\" and a \"stats\" object");
    const uint64_t id = k["id"].get<uint64_t>();
    if (f.kernels.count(id)) throw bad("kernel id " + std::to_string(id) + " appears twice");
    f.kernels[id] = {k.value("name", std::string()), k["stats"], units_of(k, "kernel " + std::to_string(id))};
    if (f.kernels[id].units.is_null() == f.has_units())
      throw bad("kernel " + std::to_string(id) + (f.has_units() ? " has no" : " has") +
                " \"units\", the total does" + (f.has_units() ? "" : " not"));
  }
  return f;
}

struct Difference {
  std::string where, counter, a, b;
  double relative = 0;  // (b - a) / |a|; infinite when a is 0
};

// Counters of `b` that differ from `a` beyond `tolerance` (a relative difference).
void compare(const std::string& where, const json& a, const json& b, double tolerance, std::vector<Difference>& out) {
  std::vector<std::string> names;
  for (auto it = a.begin(); it != a.end(); ++it) names.push_back(it.key());
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!a.contains(it.key())) names.push_back(it.key());
  for (const std::string& name : names) {
    const json none;
    const json& x = a.contains(name) ? a[name] : none;
    const json& y = b.contains(name) ? b[name] : none;
    if (x == y) continue;
    Difference d{where, name, x.is_null() ? "-" : x.dump(), y.is_null() ? "-" : y.dump(), 0};
    if (x.is_number() && y.is_number()) {
      const double va = x.get<double>(), vb = y.get<double>();
      if (va == vb) continue;
      d.relative = va != 0 ? (vb - va) / std::fabs(va) : std::numeric_limits<double>::infinity();
      if (std::fabs(d.relative) <= tolerance) continue;
    } else {
      d.relative = std::numeric_limits<double>::infinity();  // a counter in one file only, or not a number
    }
    out.push_back(std::move(d));
  }
}

std::string relative_text(double r) {
  if (std::isinf(r)) return "new";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.3f%%", 100.0 * r);
  return buf;
}

// The per-unit counters of `where` (a kernel or the total): units matched by
// name, each compared as its own "where" ("kernel 1 cluster0.sm0").
void compare_units(const std::string& where, const StatsFile& a, const json& ua, const StatsFile& b, const json& ub,
                   double tolerance, std::vector<Difference>& out, std::vector<std::string>& unmatched) {
  for (auto it = ua.begin(); it != ua.end(); ++it) {
    if (!ub.contains(it.key())) {
      unmatched.push_back(where + " unit " + it.key() + " is only in " + a.path);
      continue;
    }
    compare(where + " " + it.key(), *it, ub[it.key()], tolerance, out);
  }
  for (auto it = ub.begin(); it != ub.end(); ++it)
    if (!ua.contains(it.key())) unmatched.push_back(where + " unit " + it.key() + " is only in " + b.path);
}

int diff_files(const std::string& path_a, const std::string& path_b, double tolerance) {
  const StatsFile a = read_stats_file(path_a), b = read_stats_file(path_b);
  const bool units = a.has_units() && b.has_units();
  std::vector<Difference> diffs;
  std::vector<std::string> unmatched;
  for (const auto& [id, kernel] : a.kernels) {
    auto it = b.kernels.find(id);
    const std::string where = "kernel " + std::to_string(id);
    if (it == b.kernels.end()) {
      unmatched.push_back(where + " is only in " + a.path);
      continue;
    }
    compare(where, kernel.stats, it->second.stats, tolerance, diffs);
    if (units) compare_units(where, a, kernel.units, b, it->second.units, tolerance, diffs, unmatched);
  }
  for (const auto& [id, kernel] : b.kernels)
    if (!a.kernels.count(id)) unmatched.push_back("kernel " + std::to_string(id) + " is only in " + b.path);
  compare("total", a.total, b.total, tolerance, diffs);
  if (units) compare_units("total", a, a.total_units, b, b.total_units, tolerance, diffs, unmatched);
  std::stable_sort(diffs.begin(), diffs.end(), [](const Difference& x, const Difference& y) {
    return std::fabs(x.relative) > std::fabs(y.relative);
  });

  std::printf("lockstep diff: A = %s, B = %s\n", a.path.c_str(), b.path.c_str());
  if (!a.producer.empty()) std::printf("  A: %s\n", a.producer.c_str());
  if (!b.producer.empty()) std::printf("  B: %s\n", b.producer.c_str());
  if (a.has_units() != b.has_units())
    std::printf("  per-unit counters only in %s: not compared\n", (a.has_units() ? a : b).path.c_str());
  for (const std::string& u : unmatched) std::printf("  %s\n", u.c_str());
  if (diffs.empty() && unmatched.empty()) {
    std::printf("identical: every counter of %zu kernel(s) and the total%s\n", a.kernels.size(),
                units ? ", per unit too" : "");
    return 0;
  }
  std::printf("%zu counter(s) differ%s, largest relative difference (B - A) / |A| first:\n", diffs.size(),
              tolerance > 0 ? " beyond the tolerance" : "");
  int where_width = 10;  // wider for per-unit places ("kernel 1 cluster0.sm0")
  for (const Difference& d : diffs) where_width = std::max(where_width, int(d.where.size()));
  std::printf("  %10s  %-*s %-56s %16s %16s\n", "B vs A", where_width, "where", "counter", "A", "B");
  for (const Difference& d : diffs)
    std::printf("  %10s  %-*s %-56s %16s %16s\n", relative_text(d.relative).c_str(), where_width, d.where.c_str(),
                d.counter.c_str(), d.a.c_str(), d.b.c_str());
  return 1;
}

}  // namespace

int cmd_diff(const Args& args) {
  std::vector<std::string> files;
  double tolerance = 0;
  po::options_description opts(
      "usage: lockstep diff A.json B.json [options]\n"
      "Compares two --stats-json files (kernels matched by id, then the totals; when both files have per-unit\n"
      "counters (run --per-unit), every unit's too, matched by name) and prints the counters that differ,\n"
      "largest relative difference first. Exit status: 0 identical, 1 different, 2 error.\noptions");
  opts.add_options()("help,h", "show this help")(
      "tolerance", po::value(&tolerance)->default_value(0),
      "ignore relative differences up to this (0.01 = 1%)");
  try {
    if (!parse_command_line(args, opts, "files", files)) return 0;
    if (files.size() != 2) throw po::error("expected two statistics files, got " + std::to_string(files.size()));
    if (!(tolerance >= 0)) throw po::error("--tolerance must be 0 or more");
    return diff_files(files[0], files[1], tolerance);
  } catch (const std::exception& e) {
    // 1 means "different" here, so errors exit with 2.
    std::fprintf(stderr, "lockstep diff: error: %s\n", e.what());
    return 2;
  }
}

}  // namespace lockstep::cli
