#include "parallel/memory_models.h"

#include <array>
#include <stdexcept>

#include "memsys/fixed_latency_memory.h"
#include "memsys/memory_system.h"

namespace lockstep {
namespace {

std::unique_ptr<MemoryModel> build_cycle(const GpuSpec& spec, const ClockDomains& clocks,
                                         std::vector<std::unique_ptr<SmModel>>& sms, HeapSeparator& separator) {
  MemoryTiming timing;
  // dram.extra_latency is in core cycles; the return path counts DRAM cycles.
  timing.dram_extra_cycles = uint32_t(clocks.cycles_in(ClockDomain::kDram, spec.memory.dram.extra_latency));
  timing.icnt_edges_per_core_cycle = clocks.max_edges_per_core_cycle(ClockDomain::kIcnt);
  timing.l2_edges_per_core_cycle = clocks.max_edges_per_core_cycle(ClockDomain::kL2);
  auto memory = std::make_unique<MemorySystem>(spec.memory, spec.sms, spec.sms_per_cluster, timing, &separator);
  // Each SM's LD/ST unit talks to its L1 data cache, in front of the SM's ports.
  for (uint32_t i = 0; i < sms.size(); ++i) {
    L1DataCache l1(i, spec.memory.l1d, spec.sm.unified_l1_shared_kb, spec.sm.ldst_queue_entries);
    l1.connect(&memory->request_port(i), &memory->reply_port(i));
    sms[i]->attach_memory(std::move(l1));
    separator.separate();
  }
  return memory;
}

// Every SM's accesses complete sm.perfect_memory_latency after issue; nothing below the SMs.
std::unique_ptr<MemoryModel> build_perfect(const GpuSpec& spec, const ClockDomains&, std::vector<std::unique_ptr<SmModel>>& sms,
                                           HeapSeparator&) {
  for (const auto& sm : sms) sm->attach_memory(FixedLatencyPort(spec.sm.perfect_memory_latency));
  return std::make_unique<FixedLatencyMemory>();
}

constexpr std::array<MemoryModelEntry, 2> kModels{{
    {"cycle", "L1D, crossbars, L2 and DRAM, cycle by cycle", build_cycle},
    {"perfect", "fixed latency (sm.perfect_memory_latency), nothing below the SMs", build_perfect},
}};

}  // namespace

std::span<const MemoryModelEntry> memory_models() { return kModels; }

std::unique_ptr<MemoryModel> build_memory_model(const std::string& name, const GpuSpec& spec,
                                                const ClockDomains& clocks, std::vector<std::unique_ptr<SmModel>>& sms,
                                                HeapSeparator& separator) {
  std::string known;
  for (const MemoryModelEntry& m : kModels) {
    if (name == m.name) return m.build(spec, clocks, sms, separator);
    known += std::string(known.empty() ? "" : ", ") + m.name;
  }
  throw std::invalid_argument("unknown memory model '" + name + "' (known: " + known + ")");
}

}  // namespace lockstep
