#pragma once
// Counters owned by one SM's L1 data cache. Integers only; summed in SM id order.
#include <array>
#include <cstdint>

#include "memsys/stat_fields.h"

namespace lockstep {

struct L1Stats {
  uint64_t global_ld_hit_sectors = 0;  // global load sectors that hit in L1D
  uint64_t miss_sectors = 0;           // sectors the L1D requested from the L2 (loads)
  uint64_t fill_sectors = 0;           // sectors allocated in the L1D on fill
  uint64_t mshr_merges = 0;            // load misses merged into an outstanding sector
  uint64_t reservation_fails = 0;      // cycles the L1D could not take an access (MSHR or miss queue full)

  static constexpr auto fields() {
    return std::to_array<StatField<L1Stats>>({
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", &L1Stats::global_ld_hit_sectors},
        {"lockstep__l1_miss_sectors", &L1Stats::miss_sectors},
        {"lockstep__l1_fill_sectors", &L1Stats::fill_sectors},
        {"lockstep__l1_mshr_merges", &L1Stats::mshr_merges},
        {"lockstep__l1_reservation_fails", &L1Stats::reservation_fails},
    });
  }
  L1Stats& operator+=(const L1Stats& o) { return add_stat_fields(*this, o); }
};

}  // namespace lockstep
