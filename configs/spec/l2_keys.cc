// The keys of [l2] (L2Spec in memory_spec.h): each key's name, description
// and field, in the order a dump prints them. The one place these keys are
// described.
#include "configs/spec/spec_keys.h"

#include <vector>

#include "configs/spec/config_schema.h"
#include "configs/spec/policy_registry.h"

namespace lockstep::config {
namespace {

template <class T>
auto l2(T L2Spec::*field) {
  return member(&GpuSpec::memory, &MemorySpec::l2, field);
}

}  // namespace

void register_l2_keys(ConfigSchema& s) {
  s.field("l2.subpartitions", l2(&L2Spec::subpartitions),
          "L2 slices per DRAM channel; slices = dram.channels x l2.subpartitions");
  s.field("l2.sets", l2(&L2Spec::sets), "sets per L2 slice");
  s.field("l2.ways", l2(&L2Spec::ways), "ways per L2 slice");
  s.field("l2.line_bytes", l2(&L2Spec::line_bytes), "L2 line (tag granularity)");
  s.field("l2.sector_bytes", l2(&L2Spec::sector_bytes), "L2 sector (fill and hit granularity)");
  s.field("l2.latency", l2(&L2Spec::latency), "L2 cycles from slice input to data out on an L2 hit");
  s.field("l2.mshr_entries", l2(&L2Spec::mshr_entries), "outstanding missed sectors per slice");
  s.field("l2.mshr_max_merge", l2(&L2Spec::mshr_max_merge), "requests merged into one outstanding L2 sector");
  s.field("l2.miss_queue", l2(&L2Spec::miss_queue), "slice misses waiting for the DRAM channel");
  const std::vector hashes = policy_ids<IndexHash>();
  s.enumeration("l2.set_hash", l2(&L2Spec::set_hash), "how the set index inside a slice is formed from the address",
                hashes, index_hash_name);
  s.enumeration("l2.partition_hash", l2(&L2Spec::partition_hash), "how the memory channel is chosen from the address",
                hashes, index_hash_name);
  s.field("l2.channel_interleave_bytes", l2(&L2Spec::channel_interleave_bytes),
          "consecutive bytes mapped to one memory channel");
  s.field("l2.icnt_to_l2_queue", l2(&L2Spec::icnt_to_l2_queue), "requests from the interconnect waiting for a slice");
  s.field("l2.l2_to_dram_queue", l2(&L2Spec::l2_to_dram_queue), "slice misses waiting for the DRAM scheduler");
  s.field("l2.dram_to_l2_queue", l2(&L2Spec::dram_to_l2_queue), "DRAM replies waiting to fill a slice");
  s.field("l2.l2_to_icnt_queue", l2(&L2Spec::l2_to_icnt_queue), "replies waiting for the interconnect");
  s.field("l2.atomic_latency", l2(&L2Spec::atomic_latency),
          "L2 cycles the atomic unit takes once the sector is readable");
  s.field("l2.write_validate", l2(&L2Spec::write_validate),
          "true: write-validate, a write miss installs its bytes without a DRAM read; false: write-back with "
          "fetch on write, the sector is read from DRAM first (run --model memory only)");
}

}  // namespace lockstep::config
