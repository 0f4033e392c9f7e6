// The keys of [clock] (ClockSpec in gpu_spec.h): each key's name, description
// and field, in the order a dump prints them. The one place these keys are
// described.
#include "configs/spec/spec_keys.h"

#include "configs/spec/config_schema.h"

namespace lockstep::config {

void register_clock_keys(ConfigSchema& s) {
  s.field("clock.core_mhz", member(&GpuSpec::clocks, &ClockSpec::core_mhz), "SM clock", "MHz");
  s.field("clock.icnt_mhz", member(&GpuSpec::clocks, &ClockSpec::icnt_mhz), "interconnect clock", "MHz");
  s.field("clock.l2_mhz", member(&GpuSpec::clocks, &ClockSpec::l2_mhz), "L2 and memory partition clock", "MHz");
  s.field("clock.dram_mhz", member(&GpuSpec::clocks, &ClockSpec::dram_mhz),
          "DRAM command clock; data moves at dram.data_rate beats per cycle of it", "MHz");
}

}  // namespace lockstep::config
