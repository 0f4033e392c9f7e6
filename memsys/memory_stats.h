#pragma once
// Counters of the memory side (interconnect, L2 slices, DRAM channels) for
// one kernel. Every block keeps one MemoryStats per statistics slot
// (mem_packet.h: kStatSlots) and counts into the slot the packet carries;
// the GPU sums the blocks' shards in block-id order when the kernel ends.
// Integers only; rates are derived from the merged sums.
#include <cstdint>
#include <functional>
#include <string>

namespace lockstep {

struct MemoryStats {
  // Interconnect.
  uint64_t icnt_request_packets = 0;  // SM -> L2 packets delivered
  uint64_t icnt_request_flits = 0;
  uint64_t icnt_reply_packets = 0;    // L2 -> SM packets delivered
  uint64_t icnt_reply_flits = 0;
  uint64_t icnt_stall_cycles = 0;     // cycles a packet at an input could not advance (output busy or full)
  // L2 slices.
  uint64_t l2_read_sectors = 0;       // read requests (sectors) looked up
  uint64_t l2_read_hits = 0;          // of which served without DRAM
  uint64_t l2_write_sectors = 0;      // write requests (sectors)
  uint64_t l2_write_hits = 0;         // of which found their line present
  uint64_t l2_atomic_sectors = 0;     // atomic / reduction requests (sectors)
  uint64_t l2_mshr_merges = 0;        // misses merged into an outstanding sector
  uint64_t l2_reservation_fails = 0;  // cycles the slice could not take its next request (MSHR or queue full)
  uint64_t l2_writeback_sectors = 0;  // dirty sectors written back on eviction
  uint64_t l2_fill_sectors = 0;       // sectors filled from DRAM
  // DRAM channels.
  uint64_t dram_read_sectors = 0;     // read column commands (32 B each)
  uint64_t dram_write_sectors = 0;    // write column commands
  uint64_t dram_activates = 0;
  uint64_t dram_precharges = 0;
  uint64_t dram_row_hits = 0;         // column commands to an already open row
  uint64_t dram_refreshes = 0;
  uint64_t dram_data_bus_cycles = 0;  // DRAM command cycles the data bus carried data

  MemoryStats& operator+=(const MemoryStats& o);
  // Visits every counter with its stable name (Nsight Compute names where one exists).
  void for_each(const std::function<void(const std::string&, uint64_t)>& visit) const;
};

}  // namespace lockstep
