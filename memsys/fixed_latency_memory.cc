#include "memsys/fixed_latency_memory.h"

#include <stdexcept>
#include <string>

namespace lockstep {

void FixedLatencyMemory::run_unit(uint32_t unit, const MemoryEdge*, size_t) {
  throw std::logic_error("fixed-latency memory has no unit " + std::to_string(unit));
}

}  // namespace lockstep
