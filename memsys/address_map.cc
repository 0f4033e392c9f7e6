#include "memsys/address_map.h"

#include <array>
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

constexpr uint32_t kMaxIpolyBits = 20;

// Long division over GF(2), from the top set bit down: one step per bit.
constexpr uint32_t ipoly_reduce_bitwise(uint64_t value, uint32_t bits) {
  const uint64_t poly = kIrreducible[bits];
  for (int top = 63 - std::countl_zero(value); value != 0 && top >= int(bits); --top)
    if (value >> top & 1) value ^= poly << (top - int(bits));
  return uint32_t(value);
}

// Reduction is linear over GF(2): v mod P = XOR over the bytes b_i of v of
// (b_i x^(8i)) mod P. kIpolyByteTables[bits][i][b] = (b x^(8i)) mod P_bits,
// each the XOR of the residues x^k mod P_bits of the set bits k of b x^(8i).
using IpolyByteTables = std::array<std::array<uint32_t, 256>, 8>;

constexpr std::array<IpolyByteTables, kMaxIpolyBits + 1> make_ipoly_tables() {
  std::array<IpolyByteTables, kMaxIpolyBits + 1> tables{};
  for (uint32_t bits = 1; bits <= kMaxIpolyBits; ++bits) {
    std::array<uint32_t, 64> residue{};  // x^k mod P_bits
    for (uint32_t k = 0; k < 64; ++k) residue[k] = ipoly_reduce_bitwise(uint64_t(1) << k, bits);
    for (uint32_t i = 0; i < 8; ++i)
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t r = 0;
        for (uint32_t j = 0; j < 8; ++j)
          if (b >> j & 1) r ^= residue[8 * i + j];
        tables[bits][i][b] = r;
      }
  }
  return tables;
}

// Built once at start-up (a constant-evaluated table exceeds clang's constexpr step limit).
const std::array<IpolyByteTables, kMaxIpolyBits + 1> kIpolyByteTables = make_ipoly_tables();

}  // namespace

uint32_t ipoly_reduce_reference(uint64_t value, uint32_t bits) {
  if (bits == 0) return 0;
  if (bits > kMaxIpolyBits) throw std::invalid_argument("ipoly_reduce: more than 20 index bits");
  return ipoly_reduce_bitwise(value, bits);
}

uint32_t ipoly_reduce(uint64_t value, uint32_t bits) {
  if (bits == 0) return 0;
  if (bits > kMaxIpolyBits) throw std::invalid_argument("ipoly_reduce: more than 20 index bits");
  const IpolyByteTables& t = kIpolyByteTables[bits];
  return (t[0][value & 0xff] ^ t[1][value >> 8 & 0xff] ^ t[2][value >> 16 & 0xff] ^ t[3][value >> 24 & 0xff]) ^
         (t[4][value >> 32 & 0xff] ^ t[5][value >> 40 & 0xff] ^ t[6][value >> 48 & 0xff] ^ t[7][value >> 56]);
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
  interleave_shift_ = uint32_t(std::countr_zero(interleave_));
  line_shift_ = uint32_t(std::countr_zero(line_bytes_));
  channels_pow2_ = std::has_single_bit(channels_);
  subpartitions_pow2_ = std::has_single_bit(subpartitions_);
  subpartition_shift_ = uint32_t(std::countr_zero(subpartitions_));
}

uint32_t AddressMap::block_hash(uint64_t block) const {
  if (partition_hash_ == IndexHash::kLinear) return 0;
  // The hash of the chunk index block * 2^a with its low a bits clear: for a
  // power-of-two channel count, (r ^ block_hash) is exactly the hash of the chunk.
  return index_hash(partition_hash_, block << pow2_bits_, pow2_bits_);
}

void AddressMap::split_chunk(uint64_t chunk, uint32_t* channel, uint64_t* local_chunk) const {
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
  const uint64_t line = la >> line_shift_;
  SliceAddress s;
  uint64_t local_line = 0;
  if (subpartitions_pow2_) {
    s.slice = c * subpartitions_ + uint32_t(line & (subpartitions_ - 1));
    local_line = line >> subpartition_shift_;
  } else {
    s.slice = c * subpartitions_ + uint32_t(line % subpartitions_);
    local_line = line / subpartitions_;
  }
  s.local = (local_line << line_shift_) | (la & (line_bytes_ - 1));
  return s;
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
