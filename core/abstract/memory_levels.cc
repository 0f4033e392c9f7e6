#include "core/abstract/memory_levels.h"

#include <algorithm>
#include <cmath>

namespace lockstep {

MemoryLatencies memory_latencies(const GpuSpec& spec) {
  const ClockSpec& c = spec.clocks;
  auto core = [&](double cycles, double mhz) { return uint32_t(std::lround(cycles * c.core_mhz / mhz)); };
  const MemorySpec& m = spec.memory;
  MemoryLatencies out;
  out.l1_hit = m.l1d.hit_latency;
  out.l2_hit = out.l1_hit + core(2.0 * m.icnt.latency, c.icnt_mhz) + core(m.l2.latency, c.l2_mhz);
  out.dram = out.l2_hit + core(double(m.dram.tRCD) + m.dram.tCL + m.dram.extra_latency, c.dram_mhz);
  // Bandwidth per SM: DRAM bytes per core cycle over all channels, L2 one sector per slice per L2 cycle.
  const double sms = std::max(1u, spec.sms);
  const double dram_bytes = double(m.dram.channels) * m.dram.bus_width_bits / 8.0 * m.dram.data_rate * c.dram_mhz / c.core_mhz;
  const double l2_sectors = double(m.dram.channels) * m.l2.subpartitions * c.l2_mhz / c.core_mhz;
  out.dram_sector_cost = dram_bytes > 0 ? uint32_t(std::lround(256.0 * 32.0 * sms / dram_bytes)) : 0;
  out.l2_sector_cost = l2_sectors > 0 ? uint32_t(std::lround(256.0 * sms / l2_sectors)) : 0;
  return out;
}

void FirstTouchLevels::copy_to_device(uint64_t address, uint64_t bytes) {
  if (bytes == 0) return;
  for (uint64_t line = address / 128; line <= (address + bytes - 1) / 128; ++line) l2_.insert(line);
}

HitLevel FirstTouchLevels::level(uint32_t sm, uint64_t line, bool store_or_atomic) {
  const bool in_l2 = !l2_.insert(line).second;
  if (store_or_atomic) return HitLevel::kL2;
  if (!l1_[sm].insert(line).second) return HitLevel::kL1;
  return in_l2 ? HitLevel::kL2 : HitLevel::kDram;
}

}  // namespace lockstep
