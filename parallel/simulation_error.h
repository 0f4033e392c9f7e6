#pragma once
#include <stdexcept>
#include <string>

namespace lockstep {

// A run that cannot go on: no progress (watchdog) or an impossible kernel.
class SimulationError : public std::runtime_error {
 public:
  explicit SimulationError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace lockstep
