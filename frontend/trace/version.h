#pragma once
// The lockstep version (CMake's project version), printed by `--version` and
// recorded in every statistics file.
namespace lockstep {

inline constexpr const char* kVersion = LOCKSTEP_VERSION;

}  // namespace lockstep
