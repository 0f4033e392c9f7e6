// The keys of [l1d] (L1dSpec in memory_spec.h): each key's name, description
// and field, in the order a dump prints them. The one place these keys are
// described.
#include "configs/spec/spec_keys.h"

#include "configs/spec/config_schema.h"

namespace lockstep::config {
namespace {

template <class T>
auto l1d(T L1dSpec::*field) {
  return member(&GpuSpec::memory, &MemorySpec::l1d, field);
}

}  // namespace

void register_l1d_keys(ConfigSchema& s) {
  s.field("l1d.line_bytes", l1d(&L1dSpec::line_bytes), "L1D line (tag granularity)");
  s.field("l1d.sector_bytes", l1d(&L1dSpec::sector_bytes), "L1D sector (fill and hit granularity)");
  s.field("l1d.sets", l1d(&L1dSpec::sets), "L1D sets; fixed, ways scale when adaptive");
  s.field("l1d.ways", l1d(&L1dSpec::ways),
          "L1D ways at the base size (sets x ways x line), the whole size when not adaptive");
  s.field("l1d.adaptive", l1d(&L1dSpec::adaptive),
          "L1D takes all unified storage the kernel's shared carve-out leaves free");
  s.field("l1d.cache_global", l1d(&L1dSpec::cache_global),
          "global loads allocate in L1D (false: only read-only / non-coherent loads do)");
  s.field("l1d.streaming", l1d(&L1dSpec::streaming),
          "allocate lines on fill rather than on miss, so misses never wait for a free line");
  s.field("l1d.banks", l1d(&L1dSpec::banks), "L1D data banks");
  s.field("l1d.bank_bytes", l1d(&L1dSpec::bank_bytes), "L1D bank interleave");
  s.field("l1d.hit_latency", l1d(&L1dSpec::hit_latency), "core cycles of an L1D hit");
  s.field("l1d.mshr_entries", l1d(&L1dSpec::mshr_entries), "outstanding missed sectors per L1D");
  s.field("l1d.mshr_max_merge", l1d(&L1dSpec::mshr_max_merge), "requests merged into one outstanding L1D sector");
  s.field("l1d.miss_queue", l1d(&L1dSpec::miss_queue), "L1D misses waiting to enter the interconnect");
}

}  // namespace lockstep::config
