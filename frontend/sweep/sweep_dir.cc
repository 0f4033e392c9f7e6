#include "frontend/sweep/sweep_dir.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "frontend/trace/version.h"
#include "frontend/io/output_file.h"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace lockstep::sweep {
namespace {

constexpr int kFormat = 1;

}  // namespace

std::vector<SweepPoint> plan_points(const SweepSpec& spec, const fs::path& binary) {
  std::vector<SweepPoint> out;
  for (const SweepTrace& trace : spec.traces)
    for (const SweepGpu& gpu : spec.gpus)
      for (const SweepOverride& o : spec.overrides) {
        SweepPoint p{trace.name, gpu.name, o.name, {}};
        std::vector<std::string>& c = p.command;
        c = {binary.string(), "run", trace.path.string(), gpu.is_file ? "--config" : "--gpu", gpu.config};
        for (const std::string& kv : o.sets) c.insert(c.end(), {"--set", kv});
        if (!trace.kernels.empty()) c.insert(c.end(), {"--kernels", trace.kernels});
        c.insert(c.end(), {"--threads", std::to_string(spec.threads), "--schedule", spec.schedule, "--stats-json",
                           (spec.output / trace.name / gpu.name / o.name / "stats.json").string()});
        out.push_back(std::move(p));
      }
  return out;
}

namespace {

// The same points with the same commands, whichever binary runs them.
bool same_points(const std::vector<SweepPoint>& a, const std::vector<SweepPoint>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].label() != b[i].label() || a[i].command.size() != b[i].command.size() ||
        !std::equal(a[i].command.begin() + 1, a[i].command.end(), b[i].command.begin() + 1))
      return false;
  return true;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::optional<json> read_stats_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("kernels") || !j["kernels"].is_array() || !j.contains("total") ||
      !j["total"].is_object())
    return std::nullopt;
  if (j.value("incomplete", false)) return std::nullopt;  // what a run stopped by an error had done
  return j;
}

SweepDir SweepDir::create(const SweepSpec& spec, const fs::path& binary) {
  SweepDir d;
  d.root_ = spec.output;
  d.binary_ = binary;
  d.sweep_file_ = spec.file;
  d.threads_ = spec.threads;
  d.points_ = plan_points(spec, binary);
  if (fs::exists(d.root_ / "sweep.json")) {
    const SweepDir old = open(d.root_);
    if (!same_points(old.points_, d.points_))
      throw std::runtime_error(d.root_.string() + " holds another sweep (planned from " + old.sweep_file_.string() +
                               "); give another output directory");
  }
  json points = json::array();
  for (const SweepPoint& p : d.points_)
    points.push_back({{"trace", p.trace}, {"config", p.config}, {"override", p.override_name}, {"command", p.command}});
  const json manifest = {{"lockstep_sweep", kFormat}, {"version", kVersion},      {"sweep_file", spec.file.string()},
                         {"binary", binary.string()}, {"threads", spec.threads}, {"points", points}};
  fs::create_directories(d.root_);
  write_output_file((d.root_ / "sweep.json").string(), manifest.dump(1) + "\n");
  return d;
}

SweepDir SweepDir::open(const fs::path& dir) {
  const fs::path file = dir / "sweep.json";
  if (!fs::is_regular_file(file)) throw std::runtime_error(dir.string() + ": not a sweep directory (no sweep.json)");
  const json j = json::parse(read_text(file), nullptr, false);
  SweepDir d;
  d.root_ = fs::absolute(dir).lexically_normal();
  try {
    if (j.at("lockstep_sweep").get<int>() != kFormat) throw std::runtime_error("another format version");
    d.binary_ = j.at("binary").get<std::string>();
    d.sweep_file_ = j.at("sweep_file").get<std::string>();
    d.threads_ = j.at("threads").get<uint32_t>();
    for (const json& p : j.at("points"))
      d.points_.push_back({p.at("trace").get<std::string>(), p.at("config").get<std::string>(),
                           p.at("override").get<std::string>(), p.at("command").get<std::vector<std::string>>()});
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": not a valid sweep plan (" + e.what() + ")");
  }
  return d;
}

fs::path SweepDir::point_dir(size_t i) const {
  const SweepPoint& p = points_.at(i);
  return root_ / p.trace / p.config / p.override_name;
}

PointStatus SweepDir::status(size_t i) const {
  if (read_stats_file(stats_file(i))) return {PointState::complete, ""};
  if (fs::exists(failed_file(i))) {
    std::string line = read_text(failed_file(i));
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return {PointState::failed, line};
  }
  if (fs::exists(record_file(i))) return {PointState::started, ""};
  return {PointState::not_run, ""};
}

std::vector<size_t> SweepDir::incomplete() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < points_.size(); ++i)
    if (status(i).state != PointState::complete) out.push_back(i);
  return out;
}

}  // namespace lockstep::sweep
