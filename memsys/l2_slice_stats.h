#pragma once
// Counters of one L2 slice (memsys/l2_slice.h), per statistics slot.
#include <array>
#include <cstdint>

#include "memsys/stat_fields.h"

namespace lockstep {

struct L2SliceStats {
  uint64_t read_sectors = 0;       // read requests (sectors) looked up
  uint64_t read_hits = 0;          // of which served without DRAM
  uint64_t write_sectors = 0;      // write requests (sectors)
  uint64_t write_hits = 0;         // of which found their line present
  uint64_t atomic_sectors = 0;     // atomic / reduction requests (sectors)
  uint64_t mshr_merges = 0;        // misses merged into an outstanding sector
  uint64_t reservation_fails = 0;  // cycles the slice could not take its next request (MSHR or queue full)
  uint64_t writeback_sectors = 0;  // dirty sectors written back on eviction
  uint64_t fill_sectors = 0;       // sectors filled from DRAM

  static constexpr auto fields() {
    return std::to_array<StatField<L2SliceStats>>({
        {"lts__t_sectors_op_read.sum", &L2SliceStats::read_sectors},
        {"lts__t_sectors_op_read_lookup_hit.sum", &L2SliceStats::read_hits},
        {"lts__t_sectors_op_write.sum", &L2SliceStats::write_sectors},
        {"lts__t_sectors_op_write_lookup_hit.sum", &L2SliceStats::write_hits},
        {"lts__t_sectors_op_atom.sum", &L2SliceStats::atomic_sectors},
        {"lockstep__l2_mshr_merges", &L2SliceStats::mshr_merges},
        {"lockstep__l2_reservation_fails", &L2SliceStats::reservation_fails},
        {"lockstep__l2_writeback_sectors", &L2SliceStats::writeback_sectors},
        {"lockstep__l2_fill_sectors", &L2SliceStats::fill_sectors},
    });
  }
  L2SliceStats& operator+=(const L2SliceStats& o) { return add_stat_fields(*this, o); }
  bool operator==(const L2SliceStats&) const = default;
};

}  // namespace lockstep
