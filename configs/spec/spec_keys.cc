// The one list of the blocks whose keys make up a GPU config, in the order a
// dump prints them.
#include "configs/spec/spec_keys.h"

namespace lockstep::config {

void register_every_key(ConfigSchema& schema, const std::vector<std::string>& unit_names) {
  register_gpu_keys(schema);
  register_clock_keys(schema);
  register_launch_keys(schema);
  register_sm_keys(schema);
  for (const std::string& name : unit_names) register_unit_keys(schema, name);
  register_l1d_keys(schema);
  register_l2_keys(schema);
  register_icnt_keys(schema);
  register_dram_keys(schema);
  register_isa_keys(schema);
}

}  // namespace lockstep::config
