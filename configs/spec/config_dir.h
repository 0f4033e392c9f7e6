#pragma once
// Where the configuration files (configs/gpus, configs/isa) live.
#include <filesystem>

namespace lockstep {

// $LOCKSTEP_CONFIG_DIR if set and non-empty, else the source tree's configs/
// directory as configured at build time.
std::filesystem::path default_config_dir();

}  // namespace lockstep
