#pragma once
// Loading a GpuSpec from a config file (configs/gpus/*.cfg), with --set
// overrides, and printing one back. The format and every key are described in
// configs/README.md; each spec registers its keys in its <block>_keys.cc (spec_keys.h).
//
//   # comment
//   [sm]                 -> keys sm.*
//   max_warps = 64       -> sm.max_warps
//   units = SP,INT,SFU   -> declares unit classes; each gets [unit.SP] etc.
//
// Unknown keys (names are case-sensitive), a key given twice in one file,
// values of the wrong type and impossible values are errors: one line naming
// the file (or --set) and the key. Without gpu.name the first file's stem names the GPU.
//
// --set sm.max_warps=N alone lowers sm.max_threads to N * 32 where the file's
// value would exceed it (they follow each other on every NVIDIA GPU); any other
// combination a --set makes impossible is an error naming the key set and the
// key of a file it conflicts with.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "configs/spec/gpu_spec.h"

namespace lockstep {

class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// $LOCKSTEP_CONFIG_DIR if set, else the source tree's configs/ folder.
std::filesystem::path config_dir();

// The shipped GPU configs, config_dir()/gpus/*.cfg, sorted by file name.
std::vector<std::filesystem::path> shipped_gpu_configs();

// config_dir()/gpus/<name>.cfg, the name matched case-insensitively; throws
// ConfigError listing the shipped GPUs when there is no such config.
std::filesystem::path find_gpu_config(const std::string& name);

// gpu_or_path is a config file when it contains a '/' or ends in .cfg; else a
// shipped GPU's name (QV100, a100, ...), or failing that an existing file. Overrides are "key=value", applied
// after the file in order. Throws ConfigError; the result is validated.
GpuSpec load_gpu_spec(const std::string& gpu_or_path, const std::vector<std::string>& overrides = {});

// Layers several config files (each file's keys over the previous ones'),
// then the overrides. load_gpu_spec is this with one file.
GpuSpec load_gpu_spec_files(const std::vector<std::filesystem::path>& files,
                            const std::vector<std::string>& overrides = {});

// The GPU a command line names: --gpu NAME (shipped name or path, as
// load_gpu_spec takes it), then every --config FILE layered over it in order
// (overlays such as configs/presets/uniform-unit.cfg); without --gpu the
// first --config is the base. Then the --set overrides.
GpuSpec load_gpu_spec_layered(const std::string& gpu, const std::vector<std::string>& config_files,
                              const std::vector<std::string>& overrides = {});

// Every key with its effective value, preceded by its description: a valid
// config file that loads back to the same spec.
std::string dump_gpu_spec(const GpuSpec& spec);

// The value of `key` in `spec` as a config file writes it ("unit.SP.latency"
// -> "4"); throws ConfigError for a key the spec does not have.
std::string gpu_spec_value(const GpuSpec& spec, const std::string& key);

// A Markdown table of every key (unit keys as unit.NAME.*): key, type, default, description.
std::string config_keys_markdown();

// One line: SMs, clocks, occupancy, units, L1D, L2, DRAM and its peak bandwidth.
std::string gpu_spec_summary(const GpuSpec& spec);

}  // namespace lockstep
