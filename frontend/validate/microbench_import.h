#pragma once
// `lockstep tune import`: the output of Accel-Sim's GPU microbenchmark suite
// (util/tuner/GPU_Microbenchmark, run_all.sh), one GPGPU-Sim option per line
// ("-gpgpu_l1_latency 33", "-gpgpu_cache:dl1 S:4:128:256,L:T:m:L:L,A:384:48,16:0,32",
// "-trace_opcode_latency_initiation_sp 4,1") plus "Name = value" lines such
// as "Device Name = ...", mapped to lockstep config keys (see
// microbench_import.cc for the table). Blank lines and '#' comments are skipped.
#include <string>
#include <vector>

#include "frontend/validate/config_overlay.h"

namespace lockstep::validate {

struct MicrobenchImport {
  ConfigOverlay overlay;
  size_t mapped = 0;                  // options that became keys
  std::vector<std::string> unmapped;  // "-name value (line N): why", options lockstep has no key for
  std::vector<std::string> errors;    // "FILE line N: ...", one per bad line
};

// Reads `path`; throws std::runtime_error only when it cannot be read. Bad
// lines are collected in `errors` (the caller then writes nothing).
MicrobenchImport import_microbenchmarks(const std::string& path);

}  // namespace lockstep::validate
