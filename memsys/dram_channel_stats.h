#pragma once
// Counters of one DRAM channel (memsys/dram_channel.h), per statistics slot.
#include <array>
#include <cstdint>

#include "memsys/stat_fields.h"

namespace lockstep {

struct DramChannelStats {
  uint64_t read_sectors = 0;     // read column commands (32 B each)
  uint64_t write_sectors = 0;    // write column commands
  uint64_t activates = 0;
  uint64_t precharges = 0;
  uint64_t row_hits = 0;         // column commands to an already open row
  uint64_t refreshes = 0;
  uint64_t data_bus_cycles = 0;  // DRAM command cycles the data bus carried data

  static constexpr auto fields() {
    return std::to_array<StatField<DramChannelStats>>({
        {"dram__sectors_read.sum", &DramChannelStats::read_sectors},
        {"dram__sectors_write.sum", &DramChannelStats::write_sectors},
        {"lockstep__dram_activates", &DramChannelStats::activates},
        {"lockstep__dram_precharges", &DramChannelStats::precharges},
        {"lockstep__dram_row_hits", &DramChannelStats::row_hits},
        {"lockstep__dram_refreshes", &DramChannelStats::refreshes},
        {"lockstep__dram_data_bus_cycles", &DramChannelStats::data_bus_cycles},
    });
  }
  DramChannelStats& operator+=(const DramChannelStats& o) { return add_stat_fields(*this, o); }
  bool operator==(const DramChannelStats&) const = default;
};

}  // namespace lockstep
