#include "frontend/io/process_memory.h"

#include <fstream>
#include <sstream>
#include <string>

namespace lockstep {

double process_peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    double kb = 0;
    std::string unit;
    if (fields >> kb >> unit && unit == "kB") return kb / 1024.0;
    return 0;
  }
  return 0;
}

}  // namespace lockstep
