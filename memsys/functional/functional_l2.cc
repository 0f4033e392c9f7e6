#include "memsys/functional/functional_l2.h"

#include <bit>

#include "memsys/copy_engine.h"

namespace lockstep {

void FunctionalL2Slice::write_back(const VictimWriteBacks& victim) {
  if (victim.dirty_sectors == 0) return;  // (most fills and writes evict nothing dirty)
  const uint32_t n = victim.count();
  stats_.writeback_sectors += n;
  dram_.write_sectors += n;
}

void FunctionalL2Slice::fetch(uint64_t local, uint32_t sectors) {
  count_fetch(sectors);
  write_back(policy_.fill_sectors(local, sectors));
}

void FunctionalL2Slice::count_fetch(uint32_t sectors) {
  const uint32_t n = uint32_t(std::popcount(sectors));
  dram_.read_sectors += n;
  stats_.fill_sectors += n;
}

uint32_t FunctionalL2Slice::read_and_fetch(uint64_t local, uint32_t sectors) {
  VictimWriteBacks fill;
  const uint32_t hits = policy_.hit_sectors_or_fill(local, sectors, &fill);
  if (hits != sectors) {  // (fill holds a victim only when something was fetched)
    count_fetch(sectors & ~hits);
    write_back(fill);
  }
  return hits;
}

void FunctionalL2Slice::read_sectors(uint64_t local, uint32_t sectors) {
  stats_.read_sectors += uint32_t(std::popcount(sectors));
  stats_.read_hits += uint32_t(std::popcount(read_and_fetch(local, sectors)));
}

void FunctionalL2Slice::write_sectors(uint64_t local, uint32_t sectors, uint32_t byte_mask) {
  if (sectors == 0) return;
  const uint32_t n = uint32_t(std::popcount(sectors));
  stats_.write_sectors += n;
  // A write hits when its line is present: every sector after the first finds it so.
  bool line_hit = false;
  if (const uint32_t fetched = policy_.write_fetch_sectors(local, sectors)) {  // fetch on write
    line_hit = L2CachePolicy::write_hit(policy_.lookup(local));
    fetch(local, fetched);
    write_back(policy_.write_sectors(local, sectors, byte_mask));
  } else {
    write_back(policy_.write_sectors(local, sectors, byte_mask, &line_hit));
  }
  stats_.write_hits += line_hit ? n : n - 1;
}

void FunctionalL2Slice::atomic_sectors(uint64_t local, uint32_t sectors, uint32_t byte_mask) {
  stats_.atomic_sectors += uint32_t(std::popcount(sectors));
  read_and_fetch(local, sectors);
  // The read-modify-write leaves the accessed bytes written and dirty.
  write_back(policy_.write_sectors(local, sectors, byte_mask));
}

FunctionalL2::FunctionalL2(const MemorySpec& spec) : spec_(spec), map_(spec) {
  slices_.reserve(spec.l2_slices());
  for (uint32_t s = 0; s < spec.l2_slices(); ++s) slices_.emplace_back(spec.l2);
}

void FunctionalL2::copy_to_device(uint64_t addr, uint64_t bytes) {
  LineLocator locator(map_);
  // (A line is in one slice, at consecutive slice-local addresses.)
  for_each_copied_line(addr, bytes, spec_.l2_bytes(), spec_.l2.line_bytes, spec_.l2.sector_bytes,
                       [&](uint64_t line, uint32_t sectors, const uint32_t* byte_masks) {
                         const SliceAddress at = locator.locate(line);
                         slices_[at.slice].warm_line(at.local, sectors, byte_masks);
                       });
}

MemoryStats FunctionalL2::take_stats() { return take_instance_stats().total(); }

MemoryInstanceStats FunctionalL2::take_instance_stats() {
  MemoryInstanceStats out;
  const uint32_t per_channel = spec_.l2.subpartitions;
  for (uint32_t s = 0; s < slices_.size(); ++s)
    out.l2.push_back({"l2.slice" + std::to_string(s), slices_[s].stats()});
  for (uint32_t c = 0; c < spec_.dram.channels; ++c) {
    DramChannelStats channel;
    for (uint32_t s = c * per_channel; s < (c + 1) * per_channel; ++s) channel += slices_[s].dram_stats();
    out.dram.push_back({"dram.channel" + std::to_string(c), channel});
  }
  for (FunctionalL2Slice& s : slices_) s.clear_stats();
  return out;
}

}  // namespace lockstep
