#pragma once
// The memory models a GPU can be built with, by name: one explicit table
// (memory_models.cc), each entry a factory that builds the model for a GPU
// spec and hooks each SM to it.
//   cycle    the L1Ds, crossbars, L2 slices and DRAM channels (memsys/memory_system.h)
//   perfect  fixed latency: sm.perfect_memory_latency per access (memsys/fixed_latency_memory.h)
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/sm_model.h"
#include "memsys/heap_separator.h"
#include "memsys/memory_model.h"
#include "parallel/clock_domains.h"
#include "configs/spec/gpu_spec.h"

namespace lockstep {

struct MemoryModelEntry {
  const char* name;
  const char* description;
  // Builds the model for `spec` on `clocks` and hooks every SM of `sms` to it.
  // Between units it builds one after another it calls separator.separate().
  std::unique_ptr<MemoryModel> (*build)(const GpuSpec& spec, const ClockDomains& clocks,
                                        std::vector<std::unique_ptr<SmModel>>& sms, HeapSeparator& separator);
};

std::span<const MemoryModelEntry> memory_models();
// The model called `name`; throws std::invalid_argument naming the known ones.
std::unique_ptr<MemoryModel> build_memory_model(const std::string& name, const GpuSpec& spec,
                                                const ClockDomains& clocks, std::vector<std::unique_ptr<SmModel>>& sms,
                                                HeapSeparator& separator);

}  // namespace lockstep
