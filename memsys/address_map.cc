#include "memsys/address_map.h"

#include <bit>
#include <stdexcept>

namespace lockstep {
namespace {

// Irreducible (primitive) polynomials over GF(2) of degree 1 .. 20, the top
// bit included: x+1, x^2+x+1, x^3+x+1, x^4+x+1, x^5+x^2+1, x^6+x+1, x^7+x+1,
// x^8+x^4+x^3+x^2+1, x^9+x^4+1, x^10+x^3+1, x^11+x^2+1, x^12+x^6+x^4+x+1,
// x^13+x^4+x^3+x+1, x^14+x^10+x^6+x+1, x^15+x+1, x^16+x^12+x^3+x+1,
// x^17+x^3+1, x^18+x^7+1, x^19+x^5+x^2+x+1, x^20+x^3+1.
constexpr uint32_t kIrreducible[21] = {
    0,       0x3,     0x7,     0xB,     0x13,    0x25,    0x43,    0x83,    0x11D,   0x211,   0x409,
    0x805,   0x1053,  0x201B,  0x4443,  0x8003,  0x1100B, 0x20009, 0x40081, 0x80027, 0x100009,
};

uint32_t xor_fold(uint64_t value, uint32_t bits) {
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t r = 0;
  for (; value != 0; value >>= bits) r ^= value & mask;
  return uint32_t(r);
}

}  // namespace

uint32_t ipoly_reduce(uint64_t value, uint32_t bits) {
  if (bits == 0) return 0;
  if (bits > 20) throw std::invalid_argument("ipoly_reduce: more than 20 index bits");
  const uint64_t poly = kIrreducible[bits];
  // Long division over GF(2), from the top set bit down.
  for (int top = 63 - std::countl_zero(value); value != 0 && top >= int(bits); --top)
    if (value >> top & 1) value ^= poly << (top - int(bits));
  return uint32_t(value);
}

uint32_t index_hash(IndexHash hash, uint64_t value, uint32_t bits) {
  if (bits == 0) return 0;
  switch (hash) {
    case IndexHash::kLinear:
      return uint32_t(value & ((uint64_t(1) << bits) - 1));
    case IndexHash::kIpoly:
      return ipoly_reduce(value, bits);
    case IndexHash::kXor:
      return xor_fold(value, bits);
  }
  return 0;
}

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
}

uint32_t AddressMap::block_hash(uint64_t block) const {
  if (partition_hash_ == IndexHash::kLinear) return 0;
  // The hash of the chunk index block * 2^a with its low a bits clear: for a
  // power-of-two channel count, (r ^ block_hash) is exactly the hash of the chunk.
  return index_hash(partition_hash_, block << pow2_bits_, pow2_bits_);
}

void AddressMap::split_chunk(uint64_t chunk, uint32_t* channel, uint64_t* local_chunk) const {
  const uint64_t block = chunk / channels_;
  *channel = uint32_t(chunk % channels_) ^ block_hash(block);
  *local_chunk = block;
}

uint64_t AddressMap::join_chunk(uint32_t channel, uint64_t local_chunk) const {
  return local_chunk * channels_ + (channel ^ block_hash(local_chunk));
}

uint64_t AddressMap::channel_local(uint64_t addr, uint32_t* channel) const {
  uint64_t local_chunk = 0;
  split_chunk(addr / interleave_, channel, &local_chunk);
  return local_chunk * interleave_ + addr % interleave_;
}

uint32_t AddressMap::channel(uint64_t addr) const {
  uint32_t c = 0;
  channel_local(addr, &c);
  return c;
}

DecodedAddress AddressMap::decode(uint64_t addr) const {
  DecodedAddress d;
  const uint64_t la = channel_local(addr, &d.channel);
  d.subpartition = uint32_t(la / line_bytes_ % subpartitions_);
  d.column = uint32_t(la % kDramRowBytes / kDramColumnBytes);
  const uint64_t row_block = la / kDramRowBytes;  // bank and row bits
  d.row = uint32_t(row_block >> bank_bits_);
  d.bank = index_hash(bank_hash_, row_block, bank_bits_);
  return d;
}

uint32_t AddressMap::slice(uint64_t addr) const {
  uint32_t c = 0;
  const uint64_t la = channel_local(addr, &c);
  return c * subpartitions_ + uint32_t(la / line_bytes_ % subpartitions_);
}

uint64_t AddressMap::slice_local(uint64_t addr) const {
  uint32_t c = 0;
  const uint64_t la = channel_local(addr, &c);
  return la / line_bytes_ / subpartitions_ * line_bytes_ + la % line_bytes_;
}

uint64_t AddressMap::global(uint32_t slice, uint64_t local) const {
  const uint32_t c = slice / subpartitions_;
  const uint32_t sp = slice % subpartitions_;
  const uint64_t la = (local / line_bytes_ * subpartitions_ + sp) * line_bytes_ + local % line_bytes_;
  return join_chunk(c, la / interleave_) * interleave_ + la % interleave_;
}

}  // namespace lockstep
