#pragma once
// Where each point of a sweep stands: its files (complete, failed, started,
// not run) and, for Slurm sweeps, its task in the queue or the controller's
// last word on it. Feeds --status, --resubmit and --wait.
#include <cstdio>
#include <optional>
#include <vector>

#include "frontend/sweep/progress.h"
#include "frontend/sweep/slurm_launcher.h"
#include "frontend/sweep/sweep_dir.h"

namespace lockstep::sweep {

struct PointReport {
  size_t index = 0;
  PointStatus files;
  std::optional<TaskState> queued;  // pending or running in Slurm
  std::optional<TaskState> known;   // the controller's last state of its latest task

  bool complete() const { return files.state == PointState::complete; }
  // Neither complete nor waiting or running in the queue: what --resubmit submits.
  bool needs_run() const { return !complete() && !queued; }
};

enum class Standing { complete, running, pending, failed, missing };
// complete; running or pending in the queue; failed (failed.txt); missing:
// no result and not queued (never started, or killed: scancel, time limit).
Standing standing(const PointReport& report);

// `with_slurm`: also ask squeue and scontrol (only for sweeps with recorded jobs).
std::vector<PointReport> survey(const SweepDir& dir, bool with_slurm);

// Counts over `points` (all when empty); failed includes missing.
SweepCounts count(const std::vector<PointReport>& reports, const std::vector<size_t>& points = {});

// One summary line, then one line per point that is not complete.
void print_status(std::FILE* out, const SweepDir& dir, const std::vector<PointReport>& reports);

}  // namespace lockstep::sweep
