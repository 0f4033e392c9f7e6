#pragma once
// One attempt at one sweep point: its record (point.json: the exact command
// line and the lockstep version), its `lockstep run` child logging to run.log,
// and how it ended (failed.txt when there are no valid statistics).
#include <sys/types.h>

#include "frontend/sweep/sweep_dir.h"

namespace lockstep::sweep {

// Clears what an earlier attempt left (failed.txt, run.log, an invalid
// stats.json, temp files), writes point.json and starts the point's command.
pid_t start_point(const SweepDir& dir, size_t index);

// Records how the point's run ended (its wait status): complete when its
// stats.json is valid, else failed.txt with the error line.
PointStatus finish_point(const SweepDir& dir, size_t index, int wait_status);

// Starts, waits for and finishes the point: what one array task does.
// Returns 0 when the point is complete, else 1.
int run_point(const SweepDir& dir, size_t index);

}  // namespace lockstep::sweep
