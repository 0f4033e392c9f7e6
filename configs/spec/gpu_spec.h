#pragma once
// The immutable description of a whole GPU: SM count and grouping, the four
// clock domains, the SM (configs/spec/sm_spec.h), the memory system
// (configs/spec/memory_spec.h) and a few GPU-level knobs. Loaded from a config file
// by configs/spec/gpu_config.h; validated once, then shared read-only. Each
// field is a config key; its description is in gpu_keys.cc, the one place keys
// are described.
#include <cstdint>
#include <string>
#include <vector>

#include "configs/spec/sm_spec.h"
#include "configs/spec/memory_spec.h"

namespace lockstep {

// Clock domains (MHz). DRAM is the command clock; data moves at dram.data_rate times it.
// Keys clock.*: clock_keys.cc.
struct ClockSpec {
  double core_mhz = 1132;
  double icnt_mhz = 1132;
  double l2_mhz = 1132;
  double dram_mhz = 850;
};

// The kernel-level costs a profiler counts in a kernel's elapsed cycles
// (gpc__cycles_elapsed.max), all in core cycles; 0 turns each off. Keys
// launch.*: launch_keys.cc; the model: parallel/kernel_dispatcher.h.
struct LaunchSpec {
  uint32_t kernel_start_cycles = 0;       // from the kernel's start to the first cycle a block may go to an SM
  uint32_t block_interval_cycles = 0;     // GPU-wide: cycles between two consecutive block launches (0: no limit)
  uint32_t sm_block_interval_cycles = 0;  // per SM: cycles between two blocks to the same SM (0, 1: one per cycle)
  uint32_t kernel_drain_cycles = 0;       // from the last block's retirement to the kernel's end
};

// The unit name the ISA def and isa.extra use for the SM's LD/ST path (always present).
inline constexpr const char* kMemoryPipelineName = "MEM";

// Keys gpu.* and isa.extra: gpu_keys.cc.
struct GpuSpec {
  std::string name;
  std::string description;
  uint32_t sms = 80;
  uint32_t sms_per_cluster = 1;
  ClockSpec clocks;
  LaunchSpec launch;
  SmSpec sm;
  MemorySpec memory;
  std::vector<std::string> isa_extra;
  uint64_t watchdog_cycles = 1000000;
  bool concurrent_kernels = false;
  uint32_t kernel_launch_latency = 5000;

  uint32_t clusters() const { return sms_per_cluster ? sms / sms_per_cluster : 0; }
  // Throws std::invalid_argument naming the first impossible value ("gpu.sms = 0: must be >= 1").
  void validate() const;
};

}  // namespace lockstep
