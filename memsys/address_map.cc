#include "memsys/address_map.h"

#include <bit>

namespace lockstep {

AddressMap::AddressMap(const MemorySpec& spec)
    : partition_hash_(spec.l2.partition_hash),
      bank_hash_(spec.dram.bank_hash),
      channels_(spec.dram.channels),
      subpartitions_(spec.l2.subpartitions),
      interleave_(spec.l2.channel_interleave_bytes),
      line_bytes_(spec.l2.line_bytes),
      banks_(spec.dram.banks) {
  pow2_bits_ = uint32_t(std::countr_zero(channels_));
  bank_bits_ = uint32_t(std::countr_zero(banks_));
  interleave_shift_ = uint32_t(std::countr_zero(interleave_));
  line_shift_ = uint32_t(std::countr_zero(line_bytes_));
  channels_pow2_ = std::has_single_bit(channels_);
  subpartitions_pow2_ = std::has_single_bit(subpartitions_);
  subpartition_shift_ = uint32_t(std::countr_zero(subpartitions_));
}

inline uint32_t AddressMap::block_hash(uint64_t block) const {
  if (partition_hash_ == IndexHash::kLinear) return 0;
  // The hash of the chunk index block * 2^a with its low a bits clear: for a
  // power-of-two channel count, (r ^ block_hash) is exactly the hash of the chunk.
  return index_hash(partition_hash_, block << pow2_bits_, pow2_bits_);
}

inline void AddressMap::split_chunk(uint64_t chunk, uint32_t* channel, uint64_t* local_chunk) const {
  const uint64_t block = channels_pow2_ ? chunk >> pow2_bits_ : chunk / channels_;
  const uint32_t position = channels_pow2_ ? uint32_t(chunk & (channels_ - 1)) : uint32_t(chunk % channels_);
  *channel = position ^ block_hash(block);
  *local_chunk = block;
}

uint64_t AddressMap::join_chunk(uint32_t channel, uint64_t local_chunk) const {
  return local_chunk * channels_ + (channel ^ block_hash(local_chunk));
}

uint64_t AddressMap::channel_local(uint64_t addr, uint32_t* channel) const {
  uint64_t local_chunk = 0;
  split_chunk(addr >> interleave_shift_, channel, &local_chunk);
  return (local_chunk << interleave_shift_) | (addr & (interleave_ - 1));
}

uint32_t AddressMap::channel(uint64_t addr) const {
  uint32_t c = 0;
  channel_local(addr, &c);
  return c;
}

DecodedAddress AddressMap::decode(uint64_t addr) const {
  DecodedAddress d;
  const uint64_t la = channel_local(addr, &d.channel);
  const uint64_t line = la >> line_shift_;
  d.subpartition = subpartitions_pow2_ ? uint32_t(line & (subpartitions_ - 1)) : uint32_t(line % subpartitions_);
  d.column = uint32_t(la % kDramRowBytes / kDramColumnBytes);
  const uint64_t row_block = la / kDramRowBytes;  // bank and row bits
  d.row = uint32_t(row_block >> bank_bits_);
  d.bank = index_hash(bank_hash_, row_block, bank_bits_);
  return d;
}

SliceAddress AddressMap::locate(uint64_t addr) const {
  uint32_t c = 0;
  const uint64_t la = channel_local(addr, &c);
  return in_channel(c, la);
}

uint32_t AddressMap::slice(uint64_t addr) const { return locate(addr).slice; }

uint64_t AddressMap::slice_local(uint64_t addr) const { return locate(addr).local; }

uint64_t AddressMap::global(uint32_t slice, uint64_t local) const {
  const uint32_t c = slice / subpartitions_;
  const uint32_t sp = slice % subpartitions_;
  const uint64_t la = (((local >> line_shift_) * subpartitions_ + sp) << line_shift_) | (local & (line_bytes_ - 1));
  return (join_chunk(c, la >> interleave_shift_) << interleave_shift_) | (la & (interleave_ - 1));
}

}  // namespace lockstep
