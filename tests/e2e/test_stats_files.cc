// The statistics files end to end: the JSON records what produced it, the
// CSV holds the JSON's counters (one row per kernel and the total), and
// `lockstep diff` reports the counters that differ between two JSON files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frontend/trace/version.h"
#include "tests/e2e/cli_command.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

std::string q(const fs::path& p) { return test::quoted(p); }

json run_json(const std::string& args, const fs::path& out, const test::ScratchDir& dir) {
  const test::CommandResult r = test::lockstep_cmd("run " + args + " -q --stats-json " + q(out), dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(test::read_text(out));
}

TEST(StatsFiles, JsonRecordsWhatProducedIt) {
  test::ScratchDir dir("stats");
  const fs::path trace = test::shared_traces() / "vectoradd-sm80";
  const json j = run_json(q(trace) + " --gpu A100 --perfect-memory --set sm.perfect_memory_latency=30 "
                          "--set isa.extra=FOO:SP --kernels 1",
                          dir / "s.json", dir);
  ASSERT_TRUE(j.contains("producer")) << j.dump();
  const json& p = j["producer"];
  EXPECT_EQ(p["tool"], "lockstep");
  EXPECT_EQ(p["version"], kVersion);
  EXPECT_EQ(p["model"], "cycle");
  EXPECT_EQ(p["trace"], fs::absolute(trace).lexically_normal().string());
  EXPECT_EQ(p["gpu_config"], "A100");
  EXPECT_EQ(p["sets"], json({"sm.perfect_memory_latency=30", "isa.extra=FOO:SP"}));
  const std::string cmd = p["command_line"];
  EXPECT_EQ(cmd.rfind("lockstep run ", 0), 0u) << cmd;
  EXPECT_NE(cmd.find("--set sm.perfect_memory_latency=30"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("--kernels 1"), std::string::npos) << cmd;
}

// Splits one CSV line (RFC 4180 quoting).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

TEST(StatsFiles, CsvHoldsTheJsonCountersOneRowPerKernelAndTotal) {
  test::ScratchDir dir("stats");
  const std::string trace = q(test::shared_traces() / "bfs-rodinia-sm80") + " --perfect-memory --kernels 1-3";
  const test::CommandResult r =
      test::lockstep_cmd("run " + trace + " -q --stats-json " + q(dir / "s.json") + " --stats-csv " + q(dir / "s.csv"), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(test::read_text(dir / "s.json"));
  std::vector<std::vector<std::string>> rows;
  const std::string text = test::read_text(dir / "s.csv");
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    rows.push_back(csv_fields(text.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  ASSERT_EQ(rows.size(), 1 + j["kernels"].size() + 1);  // header, kernels, total
  const std::vector<std::string>& header = rows.front();
  ASSERT_GE(header.size(), 3u);
  EXPECT_EQ(header[0], "kernel");
  EXPECT_EQ(header[1], "name");
  EXPECT_EQ(rows.back()[0], "total");
  // Every counter of every JSON row is the CSV cell in its column, and every CSV cell comes from the JSON.
  for (size_t r = 1; r < rows.size(); ++r) {
    ASSERT_EQ(rows[r].size(), header.size()) << "row " << r;
    const bool total = r + 1 == rows.size();
    const json& stats = total ? j["total"] : j["kernels"][r - 1]["stats"];
    if (!total) {
      EXPECT_EQ(rows[r][0], std::to_string(j["kernels"][r - 1]["id"].get<int>()));
      EXPECT_EQ(rows[r][1], j["kernels"][r - 1]["name"].get<std::string>());
    }
    size_t filled = 0;
    for (size_t c = 2; c < header.size(); ++c) {
      SCOPED_TRACE(header[c]);
      if (rows[r][c].empty()) {
        EXPECT_FALSE(stats.contains(header[c]));
        continue;
      }
      ++filled;
      ASSERT_TRUE(stats.contains(header[c]));
      EXPECT_DOUBLE_EQ(std::strtod(rows[r][c].c_str(), nullptr), stats[header[c]].get<double>());
    }
    EXPECT_EQ(filled, stats.size()) << "row " << r;
  }
}

TEST(StatsFiles, DiffPrintsDifferingCountersLargestFirst) {
  test::ScratchDir dir("stats");
  const std::string trace = q(test::shared_traces() / "bfs-rodinia-sm80") + " --perfect-memory";
  run_json(trace + " --kernels 1-3", dir / "a.json", dir);
  run_json(trace + " --kernels 2-4 --set sm.perfect_memory_latency=60", dir / "b.json", dir);
  run_json(trace + " --kernels 1-3", dir / "a2.json", dir);

  const test::CommandResult same = test::lockstep_cmd("diff " + q(dir / "a.json") + " " + q(dir / "a2.json"), dir);
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("identical"), std::string::npos) << same.out;

  const test::CommandResult d = test::lockstep_cmd("diff " + q(dir / "a.json") + " " + q(dir / "b.json"), dir);
  EXPECT_EQ(d.exit_code, 1) << d.err;
  // Kernels matched by id: 1 only in A, 4 only in B, 2 and 3 compared.
  EXPECT_NE(d.out.find("kernel 1 is only in"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("kernel 4 is only in"), std::string::npos) << d.out;
  // The latency triples: kernel 2's cycles differ, and every printed relative difference
  // is (B - A) / |A| of the two files' values, in decreasing magnitude.
  const json a = json::parse(test::read_text(dir / "a.json")), b = json::parse(test::read_text(dir / "b.json"));
  EXPECT_NE(d.out.find("kernel 2"), std::string::npos) << d.out;
  double previous = INFINITY;
  int rows = 0;
  for (size_t pos = d.out.find('\n'); pos != std::string::npos && pos + 1 < d.out.size(); pos = d.out.find('\n', pos + 1)) {
    const std::string line = d.out.substr(pos + 1, d.out.find('\n', pos + 1) - pos - 1);
    char rel[32], where_kind[16], counter[128];
    unsigned id = 0;
    double va = 0, vb = 0;
    if (std::sscanf(line.c_str(), " %31s kernel %u %127s %lf %lf", rel, &id, counter, &va, &vb) == 5) {
      const json& ka = a["kernels"][id - 1 - 0]["stats"];  // A holds kernels 1-3 in order
      const json& kb = b["kernels"][id - 2]["stats"];      // B holds kernels 2-4 in order
      EXPECT_DOUBLE_EQ(va, ka[counter].get<double>()) << line;
      EXPECT_DOUBLE_EQ(vb, kb[counter].get<double>()) << line;
    } else if (std::sscanf(line.c_str(), " %31s %15s %127s %lf %lf", rel, where_kind, counter, &va, &vb) != 5 ||
               std::string(where_kind) != "total") {
      continue;
    }
    ++rows;
    const double r = std::string(rel) == "new" ? INFINITY : std::strtod(rel, nullptr) / 100.0;
    if (va != 0) {
      EXPECT_NEAR(r, (vb - va) / std::fabs(va), 1e-5 + 1e-5 * std::fabs(r)) << line;
    }
    EXPECT_LE(std::fabs(r), previous) << line;
    previous = std::fabs(r);
  }
  EXPECT_GT(rows, 3) << d.out;

  // Errors exit with 2 (1 means "different"), in one line.
  test::write_text(dir / "not-stats.json", "{\"a\": 1}");
  test::write_text(dir / "not-json.json", "{\"kernels\": [");
  for (const std::string& args : {"diff " + q(dir / "a.json") + " " + q(dir / "missing.json"),
                                  "diff " + q(dir / "a.json") + " " + q(dir / "not-stats.json"),
                                  "diff " + q(dir / "not-json.json") + " " + q(dir / "a.json"),
                                  "diff " + q(dir / "a.json")}) {
    SCOPED_TRACE(args);
    const test::CommandResult e = test::lockstep_cmd(args, dir);
    EXPECT_EQ(e.exit_code, 2);
    EXPECT_EQ(test::count_lines(e.err), 1) << e.err;
  }
}

}  // namespace
}  // namespace lockstep
