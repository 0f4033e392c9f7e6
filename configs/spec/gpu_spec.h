#pragma once
// The immutable description of a whole GPU: SM count and grouping, the four
// clock domains, the SM (configs/spec/sm_spec.h), the memory system
// (configs/spec/memory_spec.h) and a few GPU-level knobs. Loaded from a config file
// by configs/spec/gpu_config.h; validated once, then shared read-only.
#include <cstdint>
#include <string>
#include <vector>

#include "configs/spec/sm_spec.h"
#include "configs/spec/memory_spec.h"

namespace lockstep {

// Clock domains (MHz). DRAM is the command clock; data moves at dram.data_rate times it.
struct ClockSpec {
  double core_mhz = 1132;  // SMs
  double icnt_mhz = 1132;  // SM <-> L2 interconnect
  double l2_mhz = 1132;    // L2 slices and memory partitions
  double dram_mhz = 850;   // DRAM command clock
};

// The unit name the ISA def and isa.extra use for the SM's LD/ST path (always present).
inline constexpr const char* kMemoryPipelineName = "MEM";

struct GpuSpec {
  std::string name;              // short name (QV100); --gpu looks configs up by it
  std::string description;       // one line: product, architecture, sources
  uint32_t sms = 80;             // streaming multiprocessors
  uint32_t sms_per_cluster = 1;  // SMs sharing one interconnect port (a SIMT cluster)
  ClockSpec clocks;
  SmSpec sm;
  MemorySpec memory;
  std::vector<std::string> isa_extra;     // "OPC:UNIT[:KIND]" lines added to / overriding the ISA def
  uint64_t watchdog_cycles = 1000000;     // core cycles without progress before a deadlock is reported (0: off)
  bool concurrent_kernels = false;        // kernels on different CUDA streams may overlap
  uint32_t kernel_launch_latency = 5000;  // core cycles from a kernel launch to its first block

  uint32_t clusters() const { return sms_per_cluster ? sms / sms_per_cluster : 0; }
  // Throws std::invalid_argument naming the first impossible value ("gpu.sms = 0: must be >= 1").
  void validate() const;
};

}  // namespace lockstep
