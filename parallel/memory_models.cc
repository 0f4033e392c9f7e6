#include "parallel/memory_models.h"

#include <array>
#include <stdexcept>

#include "memsys/fixed_latency_memory.h"
#include "memsys/memory_system.h"

namespace lockstep {
namespace {

std::unique_ptr<MemoryModel> build_cycle(const GpuSpec& spec, const ClockDomains& clocks,
                                         std::vector<std::unique_ptr<Sm>>& sms) {
  MemoryTiming timing;
  // dram.extra_latency is in core cycles; the return path counts DRAM cycles.
  timing.dram_extra_cycles = uint32_t(clocks.cycles_in(ClockDomain::kDram, spec.memory.dram.extra_latency));
  timing.icnt_edges_per_core_cycle = clocks.max_edges_per_core_cycle(ClockDomain::kIcnt);
  timing.l2_edges_per_core_cycle = clocks.max_edges_per_core_cycle(ClockDomain::kL2);
  auto memory = std::make_unique<MemorySystem>(spec.memory, spec.sms, spec.sms_per_cluster, timing);
  for (uint32_t i = 0; i < sms.size(); ++i)
    sms[i]->attach_memory(spec.memory.l1d, &memory->request_port(i), &memory->reply_port(i));
  return memory;
}

// An SM without memory attached answers its accesses after sm.perfect_memory_latency.
std::unique_ptr<MemoryModel> build_perfect(const GpuSpec&, const ClockDomains&, std::vector<std::unique_ptr<Sm>>&) {
  return std::make_unique<FixedLatencyMemory>();
}

constexpr std::array<MemoryModelEntry, 2> kModels{{
    {"cycle", "L1D, crossbars, L2 and DRAM, cycle by cycle", build_cycle},
    {"perfect", "fixed latency (sm.perfect_memory_latency), nothing below the SMs", build_perfect},
}};

}  // namespace

std::span<const MemoryModelEntry> memory_models() { return kModels; }

std::unique_ptr<MemoryModel> build_memory_model(const std::string& name, const GpuSpec& spec,
                                                const ClockDomains& clocks, std::vector<std::unique_ptr<Sm>>& sms) {
  std::string known;
  for (const MemoryModelEntry& m : kModels) {
    if (name == m.name) return m.build(spec, clocks, sms);
    known += std::string(known.empty() ? "" : ", ") + m.name;
  }
  throw std::invalid_argument("unknown memory model '" + name + "' (known: " + known + ")");
}

}  // namespace lockstep
