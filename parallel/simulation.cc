#include "parallel/simulation.h"

#include <algorithm>
#include <stdexcept>

#include "parallel/run_models.h"

namespace lockstep {

std::vector<uint32_t> parse_kernel_list(const std::string& text) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    try {
      size_t used = 0;
      if (item.empty()) throw std::invalid_argument("empty item");
      if (dash == std::string::npos) {
        out.push_back(uint32_t(std::stoul(item, &used)));
        if (used != item.size()) throw std::invalid_argument(item);
      } else {
        const uint32_t a = uint32_t(std::stoul(item.substr(0, dash), &used));
        if (used != dash) throw std::invalid_argument(item);
        const uint32_t b = uint32_t(std::stoul(item.substr(dash + 1), &used));
        if (used != item.size() - dash - 1 || b < a) throw std::invalid_argument(item);
        for (uint32_t k = a; k <= b; ++k) out.push_back(k);
      }
    } catch (const std::exception&) {
      throw std::invalid_argument("--kernels: bad kernel list '" + text + "' (expected e.g. 1,3-5)");
    }
    pos = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

SimulationReport simulate(TraceSource& trace, const GpuSpec& spec, const RunOptions& options) {
  if (options.engine.threads == 0) throw std::invalid_argument("--threads must be at least 1");
  return find_run_model(options.model).run(trace, spec, options);
}

}  // namespace lockstep
