// lockstep compare TRACE --models cycle,abstract,memory [--gpu/--config/--set as run] [--threads N] [--csv FILE]
// Runs each model on the same trace and GPU and prints one table per kernel
// and one for the total: every counter of the first model that another model
// also has (with three models: the cycles the abstract model shares, the
// memory counters the memory model shares), each model's value, and each
// model's difference against the first one (relative, in %, for counts; in
// points for the .pct rates); "-" (empty in the CSV) where a model has no such
// counter.
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <map>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "parallel/stats_csv.h"
#include "frontend/io/output_file.h"
#include "parallel/run_models.h"
#include "parallel/simulation.h"
#include "parallel/stats_report.h"

namespace po = boost::program_options;

namespace lockstep::cli {
namespace {

bool is_rate(const std::string& counter) { return counter.size() > 4 && counter.ends_with(".pct"); }

double value_of(const StatValue& v) { return v.is_integer ? double(v.integer) : v.real; }

// Model b's value against model a's: points for rates, relative % for counts ("" when a is 0 and b is not).
std::string difference(const std::string& counter, const StatValue& a, const StatValue& b) {
  char buf[48];
  const double x = value_of(a), y = value_of(b);
  if (is_rate(counter)) {
    std::snprintf(buf, sizeof buf, "%+.2f pts", y - x);
  } else if (x == 0) {
    return y == 0 ? "+0.0%" : "new";
  } else {
    std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * (y - x) / x);
  }
  return buf;
}


// One table: the first model's counters another model also has, in its order.
struct Table {
  std::string kernel, name;  // kernel id or "total"
  std::vector<std::vector<StatValue>> stats;  // per model
};

}  // namespace

int cmd_compare(const Args& args) {
  std::string input, models, csv;
  uint32_t threads = 1;
  SimulationInputs inputs;
  po::options_description opts(
      "usage: lockstep compare TRACE --models cycle,memory [options]\n"
      "Runs TRACE with each model on the same GPU config and prints, per kernel and in total, every counter of the\n"
      "first model that another model also has: each model's value and its difference against the first model\n"
      "(relative in % for counts, in points for the .pct rates), '-' (empty in the CSV) for a model without it.\n"
      "options");
  opts.add_options()("help,h", "show this help")(
      "models", po::value(&models), "two or more models, comma-separated, the first the reference (cycle, memory, abstract)")(
      "threads", whole_number("threads", &threads, 1, kMaxThreads), "simulation threads of every run")(
      "csv", po::value(&csv), "also write the tables as CSV: kernel,name,counter,<model>...,<model>_vs_<first>...");
  inputs.add_to(opts);
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");
  const std::vector<std::string> names = split_list(models);
  if (names.size() < 2) throw po::error("--models needs two or more models, e.g. --models cycle,memory");
  for (const std::string& m : names) find_run_model(m);  // an unknown name is reported before any work
  if (!csv.empty()) resolve_output(csv);
  const GpuSpec spec = inputs.spec(input);

  std::vector<SimulationReport> reports;
  for (const std::string& m : names) {
    RunOptions o = inputs.options();
    o.model = m;
    o.engine.threads = threads;
    if (threads > 1) o.engine.schedule = Schedule::kPara1;
    auto trace = inputs.open(input);
    reports.push_back(simulate(*trace, spec, o));
    std::fprintf(stderr, "lockstep compare: %s model: %.3f s\n", m.c_str(), reports.back().wall_seconds);
  }
  const SimulationReport& first = reports.front();
  for (const SimulationReport& r : reports)
    if (r.kernels.size() != first.kernels.size())
      throw std::runtime_error("the models simulated different kernels (" + std::to_string(first.kernels.size()) +
                               " vs " + std::to_string(r.kernels.size()) + ")");
  std::vector<Table> tables;
  for (size_t k = 0; k < first.kernels.size(); ++k) {
    Table t{std::to_string(first.kernels[k].kernel_id), first.kernels[k].name, {}};
    for (const SimulationReport& r : reports) t.stats.push_back(kernel_stats(r, r.kernels[k]));
    tables.push_back(std::move(t));
  }
  Table total{"total", "", {}};
  for (const SimulationReport& r : reports) total.stats.push_back(total_stats(r));
  tables.push_back(std::move(total));

  std::string csv_text = "kernel,name,counter";
  for (const std::string& m : names) csv_text += "," + csv_field(m);
  for (size_t i = 1; i < names.size(); ++i) csv_text += "," + csv_field(names[i] + "_vs_" + names[0]);
  csv_text += "\n";
  std::printf("lockstep compare: %s on %s, models %s (differences against %s)\n", input.c_str(), spec.name.c_str(),
              models.c_str(), names[0].c_str());
  for (const Table& t : tables) {
    std::printf("%s\n", t.kernel == "total" ? "total" : ("kernel " + t.kernel + " (" + t.name.substr(0, 60) + ")").c_str());
    std::printf("  %-58s", "counter");
    for (const std::string& m : names) std::printf(" %16s", m.c_str());
    for (size_t i = 1; i < names.size(); ++i) std::printf(" %16s", (names[i] + " vs " + names[0]).c_str());
    std::printf("\n");
    // The first model's counters another model also has, in its order.
    std::vector<std::map<std::string, const StatValue*>> by_name(names.size());
    for (size_t m = 0; m < names.size(); ++m)
      for (const StatValue& v : t.stats[m]) by_name[m][v.name] = &v;
    std::vector<const StatValue*> row(names.size());  // each model's value of the counter, or nullptr
    for (const StatValue& v : t.stats[0]) {
      bool shared = false;
      for (size_t m = 0; m < names.size(); ++m) {
        const auto it = by_name[m].find(v.name);
        row[m] = it == by_name[m].end() ? nullptr : it->second;
        shared |= m > 0 && row[m] != nullptr;
      }
      if (!shared) continue;
      std::printf("  %-58s", v.name.c_str());
      csv_text += csv_field(t.kernel) + "," + csv_field(t.name) + "," + csv_field(v.name);
      // A cell: its text in the CSV; "-" in the table for a model without the counter.
      auto cell = [&](const std::string& text, bool present) {
        std::printf(" %16s", present ? text.c_str() : "-");
        csv_text += "," + text;
      };
      for (size_t m = 0; m < names.size(); ++m) cell(row[m] ? stat_text(*row[m]) : "", row[m] != nullptr);
      for (size_t m = 1; m < names.size(); ++m)
        cell(row[m] ? difference(v.name, v, *row[m]) : "", row[m] != nullptr);
      std::printf("\n");
      csv_text += "\n";
    }
  }
  if (!csv.empty()) write_output_file(csv, csv_text);
  return 0;
}

}  // namespace lockstep::cli
