#pragma once
// --launcher slurm: one array job per submission (one task per point, the task
// id being the point's index, --cpus-per-task = the sweep's threads), and the
// queue's view of those tasks (squeue for queued ones, scontrol for finished
// ones the controller still remembers).
#include <map>
#include <string>
#include <vector>

#include "frontend/sweep/sweep_dir.h"

namespace lockstep::sweep {

struct SlurmOptions {
  std::string partition, time, mem;  // empty: the cluster's default
};

// The submissions recorded in DIR/slurm/jobs.json, oldest first, and the
// options of the last one.
struct SlurmRecord {
  struct Job {
    std::string id, tasks;  // "12", "0-3,5"
  };
  std::vector<Job> jobs;
  SlurmOptions options;
};
SlurmRecord read_slurm_record(const SweepDir& dir);

// "0-3,5,7-8".
std::string array_spec(const std::vector<size_t>& indices);

// Writes DIR/slurm/sweep.sh with `options`, submits `points` with
// `sbatch --array` and records the job in DIR/slurm/jobs.json. Returns the job id.
std::string submit_array(const SweepDir& dir, const std::vector<size_t>& points, const SlurmOptions& options);

struct TaskState {
  std::string task;   // "12_3"
  std::string state;  // PENDING, RUNNING, CANCELLED, ...
};
// Tasks of the recorded jobs still in the queue, by point index (squeue).
std::map<size_t, TaskState> queued_tasks(const SweepDir& dir);
// The controller's last known state of the recorded jobs' tasks, by point
// index, the latest submission winning (scontrol; it forgets finished tasks
// after the cluster's MinJobAge, 300 s by default).
std::map<size_t, TaskState> controller_tasks(const SweepDir& dir);

}  // namespace lockstep::sweep
