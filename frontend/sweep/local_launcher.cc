#include "frontend/sweep/local_launcher.h"

#include <algorithm>
#include <map>

#include "frontend/sweep/point_runner.h"
#include "frontend/sweep/process.h"
#include "frontend/sweep/progress.h"

namespace lockstep::sweep {

std::vector<size_t> run_local(const SweepDir& dir, const std::vector<size_t>& points, unsigned jobs) {
  jobs = std::max(jobs, 1u);
  ProgressLine progress(points.size());
  SweepCounts counts;
  counts.pending = points.size();
  std::map<pid_t, size_t> running;
  std::vector<size_t> failed;
  size_t next = 0;
  while (next < points.size() || !running.empty()) {
    while (running.size() < jobs && next < points.size()) {
      running.emplace(start_point(dir, points[next]), points[next]);
      ++next;
    }
    counts.running = running.size();
    counts.pending = points.size() - next;
    progress.update(counts);
    pid_t pid = 0;
    const int status = wait_for(-1, &pid);
    const auto it = running.find(pid);
    if (it == running.end()) continue;  // not a point's child
    const size_t index = it->second;
    running.erase(it);
    if (finish_point(dir, index, status).state == PointState::complete) {
      ++counts.done;
    } else {
      ++counts.failed;
      failed.push_back(index);
    }
  }
  counts.running = 0;
  progress.update(counts, true);
  progress.finish();
  std::sort(failed.begin(), failed.end());
  return failed;
}

}  // namespace lockstep::sweep
