#include "frontend/sweep/point_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "frontend/sweep/process.h"
#include "frontend/trace/version.h"
#include "frontend/io/output_file.h"

namespace fs = std::filesystem;

namespace lockstep::sweep {
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

// The last non-empty line of the log (progress lines end in '\r').
std::string last_line(const fs::path& log) {
  std::ifstream in(log, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return "";
  const size_t begin = text.find_last_of("\r\n", end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

}  // namespace

pid_t start_point(const SweepDir& dir, size_t index) {
  const fs::path folder = dir.point_dir(index);
  fs::create_directories(folder);
  for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
    const std::string name = e.path().filename().string();
    if (name == "failed.txt" || name == "run.log" || name.find(".tmp-") != std::string::npos) fs::remove(e.path());
  }
  if (!read_stats_file(dir.stats_file(index))) fs::remove(dir.stats_file(index));
  const SweepPoint& p = dir.points().at(index);
  const nlohmann::ordered_json record = {{"trace", p.trace},
                                 {"config", p.config},
                                 {"override", p.override_name},
                                 {"command", p.command},
                                 {"command_line", shell_line(p.command)},
                                 {"lockstep_version", kVersion},
                                 {"host", host_name()},
                                 {"started", utc_now()}};
  write_output_file(dir.record_file(index).string(), record.dump(1) + "\n");
  return spawn_logged(p.command, dir.log_file(index));
}

PointStatus finish_point(const SweepDir& dir, size_t index, int wait_status) {
  if (read_stats_file(dir.stats_file(index))) return {PointState::complete, ""};
  std::string line = describe_wait_status(wait_status);
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) line += " without a valid stats.json";
  if (const std::string last = last_line(dir.log_file(index)); !last.empty() && !WIFSIGNALED(wait_status))
    line += ": " + last;
  write_output_file(dir.failed_file(index).string(), line + "\n");
  return {PointState::failed, line};
}

int run_point(const SweepDir& dir, size_t index) {
  const PointStatus result = finish_point(dir, index, wait_for(start_point(dir, index)));
  if (result.state == PointState::complete) return 0;
  std::fprintf(stderr, "lockstep sweep: point %zu (%s) failed: %s\n", index, dir.points()[index].label().c_str(),
               result.detail.c_str());
  return 1;
}

}  // namespace lockstep::sweep
