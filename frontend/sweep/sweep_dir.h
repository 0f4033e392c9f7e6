#pragma once
// The output directory of a sweep, which every later command reads:
//   DIR/sweep.json                    the plan: every point and its `lockstep run` command
//   DIR/<trace>/<config>/<override>/  one folder per point:
//       point.json   the exact command line and the lockstep version of the last attempt
//       run.log      its stdout and stderr
//       stats.json   its statistics, written by lockstep run (temp file + rename)
//       failed.txt   one line: how the last attempt ended when it gave no statistics
//   DIR/slurm/       the array job script, jobs.json (submitted job ids), task logs
// A point is complete only when its stats.json is there and valid.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frontend/sweep/sweep_spec.h"

namespace lockstep::sweep {

struct SweepPoint {
  std::string trace, config, override_name;
  std::vector<std::string> command;  // lockstep run TRACE ... --stats-json <point dir>/stats.json

  std::string label() const { return trace + "/" + config + "/" + override_name; }
};

enum class PointState { complete, failed, started, not_run };

struct PointStatus {
  PointState state = PointState::not_run;
  std::string detail;  // a failed point's error line
};

// A complete, valid stats.json of `lockstep run` ({"kernels": [...], "total": {...}}, keys in file order), else nullopt.
std::optional<nlohmann::ordered_json> read_stats_file(const std::filesystem::path& file);

// The points of `spec`: traces x GPUs x overrides in file order, each a
// `lockstep run` command of `binary` writing <output>/<trace>/<config>/<override>/stats.json.
std::vector<SweepPoint> plan_points(const SweepSpec& spec, const std::filesystem::path& binary);

class SweepDir {
 public:
  // Plans the points of `spec` for `binary` and writes spec.output/sweep.json. Reusing a directory is
  // resuming: it must hold the same points (else an error naming its sweep file).
  static SweepDir create(const SweepSpec& spec, const std::filesystem::path& binary);
  // Reads DIR/sweep.json; throws std::runtime_error when DIR is not a sweep directory.
  static SweepDir open(const std::filesystem::path& dir);

  const std::filesystem::path& root() const { return root_; }
  const std::vector<SweepPoint>& points() const { return points_; }
  const std::filesystem::path& binary() const { return binary_; }
  uint32_t threads() const { return threads_; }

  std::filesystem::path point_dir(size_t i) const;
  std::filesystem::path stats_file(size_t i) const { return point_dir(i) / "stats.json"; }
  std::filesystem::path failed_file(size_t i) const { return point_dir(i) / "failed.txt"; }
  std::filesystem::path record_file(size_t i) const { return point_dir(i) / "point.json"; }
  std::filesystem::path log_file(size_t i) const { return point_dir(i) / "run.log"; }
  std::filesystem::path slurm_dir() const { return root_ / "slurm"; }

  PointStatus status(size_t i) const;
  std::vector<size_t> incomplete() const;  // indices without a complete result, in order

 private:
  std::filesystem::path root_, binary_, sweep_file_;
  uint32_t threads_ = 1;
  std::vector<SweepPoint> points_;
};

}  // namespace lockstep::sweep
