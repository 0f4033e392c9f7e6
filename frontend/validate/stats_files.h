#pragma once
// The simulated side of a validation: lockstep stats JSON files (`lockstep run
// --stats-json`), or directories of them (their *.json files by name), read in
// the order given; each file's kernels in its launch order. Kernels cut short
// (--max-cycles, an error) are left out and listed.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frontend/validate/kernel_counters.h"

namespace lockstep::validate {

struct StatsFileCacheControl {
  std::string file;
  std::string cache_control;  // "all" or "none"; a file without the field: "none" (caches kept, the older behaviour)
};

struct SimulatedRuns {
  KernelSequence kernels;
  std::vector<StatsFileCacheControl> cache_control;  // one per file
  std::vector<std::string> left_out;                 // "FILE kernel 3 'name': truncated"
};

// A JSON file's document; throws std::runtime_error "PATH: cannot open" or
// "PATH: not JSON: WHY".
nlohmann::json read_json_file(const std::string& path);

// Throws std::runtime_error (one line naming the file) for an unreadable
// file, a directory without *.json, a file that is not a lockstep stats file.
SimulatedRuns read_stats_files(const std::vector<std::string>& paths);

}  // namespace lockstep::validate
