#include "frontend/sweep/sweep_status.h"

#include <algorithm>
#include <string>

namespace lockstep::sweep {

std::vector<PointReport> survey(const SweepDir& dir, bool with_slurm) {
  std::map<size_t, TaskState> queued, known;
  if (with_slurm && !read_slurm_record(dir).jobs.empty()) {
    queued = queued_tasks(dir);
    known = controller_tasks(dir);
  }
  std::vector<PointReport> out;
  for (size_t i = 0; i < dir.points().size(); ++i) {
    PointReport r;
    r.index = i;
    r.files = dir.status(i);
    if (auto q = queued.find(i); q != queued.end()) r.queued = q->second;
    if (auto k = known.find(i); k != known.end()) r.known = k->second;
    out.push_back(std::move(r));
  }
  return out;
}

Standing standing(const PointReport& r) {
  if (r.complete()) return Standing::complete;
  if (r.queued) {
    const std::string& s = r.queued->state;
    return s == "RUNNING" || s == "COMPLETING" || s == "CONFIGURING" ? Standing::running : Standing::pending;
  }
  return r.files.state == PointState::failed ? Standing::failed : Standing::missing;
}

SweepCounts count(const std::vector<PointReport>& reports, const std::vector<size_t>& points) {
  SweepCounts c;
  for (const PointReport& r : reports) {
    if (!points.empty() && std::find(points.begin(), points.end(), r.index) == points.end()) continue;
    switch (standing(r)) {
      case Standing::complete: ++c.done; break;
      case Standing::running: ++c.running; break;
      case Standing::pending: ++c.pending; break;
      case Standing::failed:
      case Standing::missing: ++c.failed; break;
    }
  }
  return c;
}

void print_status(std::FILE* out, const SweepDir& dir, const std::vector<PointReport>& reports) {
  size_t n[5] = {};
  for (const PointReport& r : reports) ++n[size_t(standing(r))];
  std::fprintf(out, "sweep %s: %zu points: %zu complete, %zu failed, %zu running, %zu pending, %zu without a result\n",
               dir.root().c_str(), reports.size(), n[size_t(Standing::complete)], n[size_t(Standing::failed)],
               n[size_t(Standing::running)], n[size_t(Standing::pending)], n[size_t(Standing::missing)]);
  for (const PointReport& r : reports) {
    if (r.complete()) continue;
    std::string what;
    if (r.queued) {
      what = r.queued->state + " (task " + r.queued->task + ")";
    } else {
      if (r.files.state == PointState::failed)
        what = "failed: " + r.files.detail;
      else if (r.files.state == PointState::started)
        what = "no result (started; stopped before it ended)";
      else
        what = "no result (never started)";
      if (r.known) what += "; Slurm: " + r.known->state + " (task " + r.known->task + ")";
    }
    std::fprintf(out, "  point %zu %s: %s\n", r.index, dir.points()[r.index].label().c_str(), what.c_str());
  }
}

}  // namespace lockstep::sweep
