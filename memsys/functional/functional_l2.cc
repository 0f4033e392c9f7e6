#include "memsys/functional/functional_l2.h"

#include "memsys/copy_engine.h"

namespace lockstep {

void FunctionalL2Slice::write_back(const VictimWriteBacks& victim) {
  if (victim.dirty_sectors == 0) return;  // (most fills and writes evict nothing dirty)
  const uint32_t n = victim.count();
  stats_.writeback_sectors += n;
  dram_.write_sectors += n;
}

void FunctionalL2Slice::fetch(uint64_t local) {
  ++dram_.read_sectors;
  ++stats_.fill_sectors;
  write_back(policy_.fill(local));
}

void FunctionalL2Slice::read(uint64_t local) {
  ++stats_.read_sectors;
  if (policy_.hit_if_readable(local)) {
    ++stats_.read_hits;
    return;
  }
  fetch(local);
}

void FunctionalL2Slice::write(uint64_t local, uint32_t byte_mask) {
  ++stats_.write_sectors;
  if (L2CachePolicy::write_hit(policy_.lookup(local))) ++stats_.write_hits;
  if (policy_.write_needs_fetch(local)) fetch(local);  // fetch on write (l2.write_validate = false)
  write_back(policy_.write(local, byte_mask));
}

void FunctionalL2Slice::atomic(uint64_t local, uint32_t byte_mask) {
  ++stats_.atomic_sectors;
  if (!policy_.hit_if_readable(local)) fetch(local);
  // The read-modify-write leaves the accessed bytes written and dirty.
  write_back(policy_.write(local, byte_mask));
}

FunctionalL2::FunctionalL2(const MemorySpec& spec) : spec_(spec), map_(spec) {
  slices_.reserve(spec.l2_slices());
  for (uint32_t s = 0; s < spec.l2_slices(); ++s) slices_.emplace_back(spec.l2);
}

void FunctionalL2::copy_to_device(uint64_t addr, uint64_t bytes) {
  LineLocator locator(map_);
  for_each_copied_piece(addr, bytes, spec_.l2_bytes(), spec_.l2.sector_bytes, [&](uint64_t a, uint32_t n) {
    const SliceAddress at = locator.locate(a);
    slices_[at.slice].warm(at.local, n);
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
