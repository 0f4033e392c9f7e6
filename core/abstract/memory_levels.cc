#include "core/abstract/memory_levels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "core/l1_cache_policy.h"
#include "memsys/copy_engine.h"

namespace lockstep {
namespace {

// Sectors in a mask of a line's four (a table: std::popcount is a library call on baseline x86-64).
uint32_t sector_count(uint32_t sectors) {
  static constexpr uint8_t kCount[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return kCount[sectors & 15u];
}

}  // namespace

MemoryLatencies memory_latencies(const GpuSpec& spec) {
  const ClockSpec& c = spec.clocks;
  auto core = [&](double cycles, double mhz) { return uint32_t(std::lround(cycles * c.core_mhz / mhz)); };
  const MemorySpec& m = spec.memory;
  MemoryLatencies out;
  out.l1_hit = m.l1d.hit_latency;
  out.miss_queue = m.l1d.miss_queue;
  out.port_sector_cost = c.icnt_mhz > 0 ? uint32_t(std::lround(256.0 * c.core_mhz / c.icnt_mhz)) : 0;
  out.l2_hit = out.l1_hit + core(2.0 * m.icnt.latency, c.icnt_mhz) + core(m.l2.latency, c.l2_mhz);
  out.dram = out.l2_hit + core(double(m.dram.tRCD) + m.dram.tCL + m.dram.extra_latency, c.dram_mhz);
  // A slice serves one sector per L2 cycle; a channel its bus width at the data rate.
  const double channel_bytes = m.dram.bus_width_bits / 8.0 * m.dram.data_rate * c.dram_mhz / c.core_mhz;
  out.slice_sector_cost = c.l2_mhz > 0 ? uint32_t(std::lround(256.0 * c.core_mhz / c.l2_mhz)) : 0;
  out.channel_sector_cost = channel_bytes > 0 ? uint32_t(std::lround(256.0 * 32.0 / channel_bytes)) : 0;
  return out;
}

void share_bandwidth(MemoryLatencies& latencies, const KernelTraffic& traffic) {
  auto most = [](const std::vector<uint64_t>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); };
  auto cost = [&](const std::vector<uint64_t>& units, const std::vector<uint64_t>& sms, uint32_t unit_cost) {
    const uint64_t busiest_sm = most(sms);
    if (busiest_sm == 0) return uint32_t(0);
    const uint64_t c = (most(units) * unit_cost + busiest_sm - 1) / busiest_sm;
    return uint32_t(std::min<uint64_t>(c, UINT32_MAX));
  };
  latencies.l2_sector_cost = cost(traffic.slice_sectors, traffic.sm_l2_sectors, latencies.slice_sector_cost);
  latencies.dram_sector_cost = cost(traffic.channel_sectors, traffic.sm_dram_sectors, latencies.channel_sector_cost);
}

CacheHitLevels::CacheHitLevels(const GpuSpec& spec) : spec_(spec), map_(spec.memory) {
  const MemorySpec& m = spec.memory;
  if (m.l1d.line_bytes != 128 || m.l1d.sector_bytes != 32 || m.l2.line_bytes != 128 || m.l2.sector_bytes != 32)
    throw std::invalid_argument("abstract model: the L1D and L2 must have 128 B lines of 32 B sectors");
  if (m.l2.channel_interleave_bytes < 128)
    throw std::invalid_argument("abstract model: l2.channel_interleave_bytes must be >= 128 (a line in one slice)");
  l1_.reserve(spec.sms);
  for (uint32_t s = 0; s < spec.sms; ++s) l1_.emplace_back(l1_geometry(m.l1d, spec.sm.unified_l1_shared_kb));
  for (uint32_t s = 0; s < m.l2_slices(); ++s) l2_.push_back(std::make_unique<L2CachePolicy>(m.l2));
  traffic_.slice_sectors.assign(m.l2_slices(), 0);
  traffic_.channel_sectors.assign(m.dram.channels, 0);
  traffic_.sm_l2_sectors.assign(spec.sms, 0);
  traffic_.sm_dram_sectors.assign(spec.sms, 0);
}

void CacheHitLevels::start_kernel(uint32_t l1_kb) {
  for (SectorCache& l1 : l1_) {
    const uint32_t ways = l1_ways_for_kernel(spec_.memory.l1d, l1_kb, l1.geometry().ways);
    if (ways != l1.ways_in_use()) l1.set_ways(ways);
    else l1.invalidate_all();
  }
  for (auto* v : {&traffic_.slice_sectors, &traffic_.channel_sectors, &traffic_.sm_l2_sectors, &traffic_.sm_dram_sectors})
    std::fill(v->begin(), v->end(), 0);
}

void CacheHitLevels::save_l2() {
  if (l2_saved_.empty())
    for (const auto& slice : l2_) l2_saved_.push_back(std::make_unique<L2CachePolicy>(*slice));
  else
    for (size_t i = 0; i < l2_.size(); ++i) *l2_saved_[i] = *l2_[i];
}

void CacheHitLevels::restore_l2() {
  if (l2_saved_.size() != l2_.size()) throw std::logic_error("CacheHitLevels::restore_l2 without save_l2");
  l2_.swap(l2_saved_);
}

void CacheHitLevels::copy_to_device(uint64_t address, uint64_t bytes) {
  // As the cycle model's copy engine (memsys/copy_engine.h).
  for_each_copied_line(address, bytes, spec_.memory.l2_bytes(), spec_.memory.l2.line_bytes,
                       spec_.memory.l2.sector_bytes, [&](uint64_t line, uint32_t sectors, const uint32_t* byte_masks) {
                         const SliceAddress s = locator_.locate(line);
                         l2_[s.slice]->warm_line(s.local, sectors, byte_masks);
                       });
}

uint8_t CacheHitLevels::write_back(uint32_t slice, const VictimWriteBacks& wb) {
  const uint32_t n = wb.count();
  traffic_.channel_sectors[slice / spec_.memory.l2.subpartitions] += n;
  return uint8_t(n);
}

LineCost CacheHitLevels::access(uint32_t sm, uint64_t line_addr, uint32_t sectors,
                                const std::array<uint32_t, 4>& byte_masks, LineAccessKind kind, uint32_t requests) {
  // One lookup per line and cache: the same as looking up each sector in turn
  // (SectorCache's line-granular forms).
  LineCost c;
  SectorCache& l1 = l1_[sm];
  uint32_t to_l2 = sectors;
  if (kind == LineAccessKind::kLoad) {
    to_l2 &= ~l1.readable_sectors(line_addr, sectors);
    if (to_l2 == 0) {
      l1.touch(line_addr);
      return c;
    }
  } else if (kind == LineAccessKind::kStore) {
    // Write-through: a present L1 line takes the bytes.
    l1.write_sectors(line_addr, sectors, byte_masks.data(), false);
  }
  const SliceAddress where = locator_.locate(line_addr);
  L2CachePolicy& l2 = *l2_[where.slice];
  uint32_t dram = 0, writebacks = 0;
  if (kind == LineAccessKind::kStore) {
    writebacks += write_back(where.slice, l2.write_sectors(where.local, to_l2, byte_masks.data()));
  } else {
    const uint32_t missed = to_l2 & ~l2.readable_sectors(where.local, to_l2);
    dram = sector_count(missed);
    if (missed != 0) writebacks += write_back(where.slice, l2.fill_sectors(where.local, missed));
    else l2.hit(where.local);
    if (kind == LineAccessKind::kAtomic) writebacks += write_back(where.slice, l2.write_sectors(where.local, to_l2, byte_masks.data()));
  }
  if (kind == LineAccessKind::kLoad) l1.fill_sectors(line_addr, to_l2);
  const uint32_t l2_sectors = kind == LineAccessKind::kLoad ? sector_count(to_l2) : std::max(requests, sector_count(to_l2));
  traffic_.slice_sectors[where.slice] += l2_sectors;
  traffic_.channel_sectors[where.slice / spec_.memory.l2.subpartitions] += dram;
  traffic_.sm_l2_sectors[sm] += l2_sectors;
  traffic_.sm_dram_sectors[sm] += dram + writebacks;
  c.level = dram > 0 ? HitLevel::kDram : HitLevel::kL2;
  c.l2_sectors = uint8_t(l2_sectors);
  c.dram_reads = uint8_t(dram);
  c.dram_writebacks = uint8_t(writebacks);
  return c;
}

}  // namespace lockstep
