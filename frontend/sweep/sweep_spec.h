#pragma once
// A sweep file: traces x GPU configs x override sets, in TOML (read with toml++).
//
//   output = "../../out/sweep"        # output directory (relative to this file)
//   threads = 1                       # simulation threads per point (per job)
//   schedule = "seq"                  # optional; default seq, para1 when threads > 1
//   gpus = ["A100", "my/QV100-x.cfg"] # shipped GPU names or config files
//   overrides = ["base", "l1off+gto"] # the override points: set groups joined by '+'
//
//   [sets]                            # named groups of --set values
//   base = []
//   l1off = ["l1d.cache_global=false"]
//   gto = ["sm.scheduler=gto"]
//
//   [[traces]]                        # a path or a glob; kernels and name optional
//   path = "../traces/vectoradd-sm80"
//   kernels = "1"
//
// Relative paths are relative to the sweep file's folder. Everything is checked
// while loading (unknown keys, traces that are missing or unreadable, kernel
// ids a trace lacks, GPU configs that do not load with every override set), so
// a bad file fails before anything runs or is submitted.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lockstep::sweep {

// One line: "FILE:LINE: what".
class SweepFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SweepTrace {
  std::string name;             // directory name of its points: `name`, else derived from the path
  std::filesystem::path path;   // absolute
  std::string kernels;          // run --kernels, empty: all
};

struct SweepGpu {
  std::string name;             // directory name: the GPU name or the config file's stem
  std::string config;           // a shipped GPU name or an absolute config file path
  bool is_file = false;
};

struct SweepOverride {
  std::string name;             // e.g. "l1off+gto"
  std::vector<std::string> sets;  // key=value, groups in order
};

struct SweepSpec {
  std::filesystem::path file;     // absolute
  std::filesystem::path output;   // absolute
  uint32_t threads = 1;
  std::string schedule = "seq";
  std::vector<SweepTrace> traces;
  std::vector<SweepGpu> gpus;
  std::vector<SweepOverride> overrides;
};

// Loads and checks `file`; `output` (when given) replaces the file's output
// directory. Throws SweepFileError.
SweepSpec load_sweep_file(const std::filesystem::path& file, const std::optional<std::filesystem::path>& output = {});

}  // namespace lockstep::sweep
