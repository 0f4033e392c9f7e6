#pragma once
// Each spec registers its own config keys, with their descriptions, in one
// file beside it (<block>_keys.cc); spec_keys.cc lists them all, explicitly, in
// the order a dump prints them (nothing registers itself).
#include <string>
#include <vector>

namespace lockstep::config {

class ConfigSchema;

void register_gpu_keys(ConfigSchema& schema);    // gpu.*: GpuSpec (gpu_keys.cc)
void register_clock_keys(ConfigSchema& schema);  // clock.*: ClockSpec (clock_keys.cc)
void register_launch_keys(ConfigSchema& schema); // launch.*: LaunchSpec (launch_keys.cc)
void register_sm_keys(ConfigSchema& schema);     // sm.*: SmSpec (sm_keys.cc)
void register_unit_keys(ConfigSchema& schema, const std::string& name);  // unit.NAME.*: UnitSpec (sm_keys.cc)
void register_l1d_keys(ConfigSchema& schema);    // l1d.*: L1dSpec (l1d_keys.cc)
void register_l2_keys(ConfigSchema& schema);     // l2.*: L2Spec (l2_keys.cc)
void register_icnt_keys(ConfigSchema& schema);   // icnt.*: IcntSpec (icnt_keys.cc)
void register_dram_keys(ConfigSchema& schema);   // dram.*: DramSpec (dram_keys.cc)
void register_isa_keys(ConfigSchema& schema);    // isa.*: GpuSpec::isa_extra (gpu_keys.cc)

// Every key of a GPU whose SM declares these unit classes; the ConfigSchema
// constructor calls it.
void register_every_key(ConfigSchema& schema, const std::vector<std::string>& unit_names);

}  // namespace lockstep::config
