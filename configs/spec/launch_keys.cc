// The keys of [launch] (LaunchSpec in gpu_spec.h): the kernel-level costs a
// profiler counts in a kernel's elapsed cycles. Each key's name, description
// and field, in the order a dump prints them. The one place these keys are described.
#include "configs/spec/spec_keys.h"

#include "configs/spec/config_schema.h"

namespace lockstep::config {

void register_launch_keys(ConfigSchema& s) {
  s.field("launch.kernel_start_cycles", member(&GpuSpec::launch, &LaunchSpec::kernel_start_cycles),
          "cycles from a kernel's start (where its elapsed cycles begin) to the first cycle a block may go to an SM");
  s.field("launch.block_interval_cycles", member(&GpuSpec::launch, &LaunchSpec::block_interval_cycles),
          "GPU-wide: cycles between two consecutive block launches, whatever SM takes them (0: no limit)");
  s.field("launch.sm_block_interval_cycles", member(&GpuSpec::launch, &LaunchSpec::sm_block_interval_cycles),
          "per SM: cycles between two block launches to the same SM (0 or 1: one per cycle)");
  s.field("launch.kernel_drain_cycles", member(&GpuSpec::launch, &LaunchSpec::kernel_drain_cycles),
          "cycles from the retirement of a kernel's last block to its end (the next kernel waits for it)");
}

}  // namespace lockstep::config
