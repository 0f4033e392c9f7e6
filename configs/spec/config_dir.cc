#include "configs/spec/config_dir.h"

#include <cstdlib>

#ifndef LOCKSTEP_CONFIG_DIR
#error "LOCKSTEP_CONFIG_DIR must be defined by the build (configs/spec/CMakeLists.txt)"
#endif

namespace lockstep {

std::filesystem::path default_config_dir() {
  const char* env = std::getenv("LOCKSTEP_CONFIG_DIR");
  if (env && *env) return env;
  return LOCKSTEP_CONFIG_DIR;
}

}  // namespace lockstep
