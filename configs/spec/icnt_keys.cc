// The keys of [icnt] (IcntSpec in memory_spec.h): each key's name,
// description and field, in the order a dump prints them. The one place these
// keys are described.
#include "configs/spec/spec_keys.h"

#include "configs/spec/config_schema.h"

namespace lockstep::config {
namespace {

template <class T>
auto icnt(T IcntSpec::*field) {
  return member(&GpuSpec::memory, &MemorySpec::icnt, field);
}

}  // namespace

void register_icnt_keys(ConfigSchema& s) {
  s.field("icnt.flit_bytes", icnt(&IcntSpec::flit_bytes), "bytes a crossbar port moves per interconnect cycle");
  s.field("icnt.latency", icnt(&IcntSpec::latency),
          "interconnect cycles from injection to ejection without contention");
  s.field("icnt.in_buffer", icnt(&IcntSpec::in_buffer), "flits buffered per input port");
  s.field("icnt.out_buffer", icnt(&IcntSpec::out_buffer), "flits buffered per output port");
  s.field("icnt.sm_ejection_buffer", icnt(&IcntSpec::sm_ejection_buffer),
          "packets a cluster accepts from the network before back-pressure");
  s.field("icnt.ldst_response_buffer", icnt(&IcntSpec::ldst_response_buffer),
          "replies the LD/ST unit holds before it stops ejecting");
}

}  // namespace lockstep::config
