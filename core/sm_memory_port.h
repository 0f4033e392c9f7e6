#pragma once
// The memory below one SM's LD/ST unit, as the SM sees it: a closed set of
// port implementations held in a std::variant (no virtual call per memory
// instruction). Every implementation provides
//
//   void start_kernel(uint32_t l1_kb, uint8_t stat_slot);  // a new kernel's blocks arrive
//   bool can_accept() const;   // another instruction may be handed over this cycle
//   bool has_work() const;     // cycle() must run this cycle
//   uint64_t access(const SmMemoryAccess& a);
//       // requires can_accept(); returns the cycle the instruction's data is
//       // there when the port knows it at issue, else kCompletesLater: then
//       // cycle() reports each of its sector accesses with done(token, cycle)
//   template <typename Done> void cycle(uint64_t now, Done&& done);
//   L1Stats take_stats();      // returns and resets the port's counters
//
// FixedLatencyPort: perfect memory (--perfect-memory, or no memory attached).
// L1DataCache: the L1 data cache in front of the cycle memory system's ports.
// A new model of the memory below the SM adds its class to SmMemoryPort.
#include <utility>
#include <variant>

#include "core/fixed_latency_port.h"
#include "core/l1_data_cache.h"

namespace lockstep {

using SmMemoryPort = std::variant<FixedLatencyPort, L1DataCache>;

}  // namespace lockstep
