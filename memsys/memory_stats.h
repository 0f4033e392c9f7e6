#pragma once
// Counters of the memory side for one kernel: the composition of the blocks'
// own statistics (interconnect subnets, L2 slices, DRAM channels). Every
// block keeps one stats struct per statistics slot (mem_packet.h:
// kStatSlots) and counts into the slot the packet carries; the memory system
// hands them out per instance (MemoryInstanceStats) or summed (MemoryStats)
// when the kernel ends. Integers only; rates are derived from the merged sums.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "memsys/crossbar_stats.h"
#include "memsys/dram_channel_stats.h"
#include "memsys/l2_slice_stats.h"

namespace lockstep {

struct MemoryStats {
  CrossbarStats icnt;     // both subnets
  L2SliceStats l2;        // every slice
  DramChannelStats dram;  // every channel

  MemoryStats& operator+=(const MemoryStats& o);
  bool operator==(const MemoryStats&) const = default;
  // Visits every counter with its stable name (Nsight Compute names where one
  // exists): the interconnect's, then the L2's, then DRAM's, each in its field list's order.
  void for_each(const std::function<void(const std::string&, uint64_t)>& visit) const;
};

// One block instance's counters under its hierarchical name.
template <typename Stats>
struct NamedStats {
  std::string name;  // "icnt.request", "l2.slice3", "dram.channel1"
  Stats stats;
};

// The memory side's counters per block instance, in a fixed order: the
// request subnet, the reply subnet, the slices by id, the channels by id.
struct MemoryInstanceStats {
  std::vector<NamedStats<CrossbarStats>> icnt;
  std::vector<NamedStats<L2SliceStats>> l2;
  std::vector<NamedStats<DramChannelStats>> dram;

  // The sum over every instance (what MemoryStats reports).
  MemoryStats total() const;
  // Adds `o`'s counters instance by instance (the same instances in the same
  // order, or none: an empty side takes the other's list).
  MemoryInstanceStats& operator+=(const MemoryInstanceStats& o);
  // Visits every counter of every instance: visit(instance name, counter name, value), in the order above.
  void for_each(const std::function<void(const std::string&, const std::string&, uint64_t)>& visit) const;
};

}  // namespace lockstep
