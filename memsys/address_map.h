#pragma once
// Global address -> memory channel, L2 sub-partition (slice), DRAM bank, row
// and column (papers/accel-sim.txt §II-B, volta-memory-system.txt §II).
//
// Bit layout, with I = l2.channel_interleave_bytes, C = dram.channels,
// S = l2.subpartitions, L = l2.line_bytes, R = kDramRowBytes, B = dram.banks:
//
//   addr = chunk * I + offset                       offset < I
//   (channel, local_chunk) = partition_hash(chunk)  a bijection, see below
//   channel-local address  la = local_chunk * I + offset
//   subpartition = (la / L) % S                     consecutive lines of a chunk alternate slices
//   slice-local address    sla = (la / L / S) * L + la % L   (what the slice's cache indexes)
//   column = (la % R) / 32                          32 B units inside the row
//   bank   = bank_hash((la / R) % B, row)           linear: plain bits; xor: bank bits ^ each bank-wide group of row bits;
//                                                   ipoly: GF(2) reduction of la / R (bijective per row)
//   row    = la / (R * B)
//
// So the sectors of a chunk, and the chunks a channel receives one after the
// other, share a DRAM row (row-buffer locality); the next row-sized block of a
// channel goes to the next bank.
//
// Partition hash of the chunk index k, C = 2^a * m with m odd. Chunks come in
// blocks of C (block = k / C, the channel-local chunk); inside a block the
// channel is the plain position, its low a bits XORed with a hash of the block:
//   channel = (k % C) ^ H(block << a), local_chunk = block
//   linear: H = 0 (channel = k % C).
//   ipoly:  H(v) = v(x) mod P_a(x), v as a GF(2) polynomial reduced by an
//           irreducible polynomial of degree a. For C = 2^a this is exactly
//           Rau's IPOLY of the chunk index, k(x) mod P_a(x) (the hash is
//           linear over GF(2)), as GPGPU-Sim's ipoly_hash_function tabulates
//           for 16/32/64 channels. For other C (A100: 40 = 8 x 5) the odd
//           factor takes the plain position (every power-of-two stride is
//           coprime with m) and IPOLY spreads the power-of-two part.
//   xor:    H(v) = XOR of the a-bit groups of v.
// Every C aligned consecutive chunks cover every channel once, and every
// power-of-two stride spreads evenly (tests/memsys/test_address_map.cc).
//
// DRAM rows are taken as kDramRowBytes per bank: DramSpec has no row size (2 KB
// is the GDDR5/GDDR6 page and an HBM2 pseudo-channel pair's page).
#include <cstdint>

#include "configs/spec/memory_spec.h"
#include "memsys/index_hash/index_hash.h"

namespace lockstep {

inline constexpr uint32_t kDramRowBytes = 2048;
inline constexpr uint32_t kDramColumnBytes = 32;

// Where an address lives in the memory system.
struct DecodedAddress {
  uint32_t channel = 0;       // memory partition, 0 .. dram.channels - 1
  uint32_t subpartition = 0;  // L2 slice of the channel, 0 .. l2.subpartitions - 1
  uint32_t bank = 0;          // DRAM bank inside the channel
  uint32_t row = 0;           // DRAM row inside the bank
  uint32_t column = 0;        // 32 B unit inside the row
};

// The L2 slice of an address and the address inside that slice.
struct SliceAddress {
  uint32_t slice = 0;  // channel * l2.subpartitions + subpartition
  uint64_t local = 0;  // slice-local address (AddressMap::slice_local)
};

class AddressMap {
 public:
  // The spec must be valid (MemorySpec::validate()).
  explicit AddressMap(const MemorySpec& spec);

  DecodedAddress decode(uint64_t addr) const;
  uint32_t channel(uint64_t addr) const;
  // The L2 slice serving addr: channel * l2.subpartitions + subpartition.
  uint32_t slice(uint64_t addr) const;
  uint32_t slices() const { return channels_ * subpartitions_; }

  // Address inside the slice (channel and sub-partition removed); dense per slice.
  uint64_t slice_local(uint64_t addr) const;
  // slice(addr) and slice_local(addr) from one partition hash:
  // in_channel(c, channel_local(addr, &c)).
  SliceAddress locate(uint64_t addr) const;
  // The channel of addr and the address inside the channel (channel bits
  // removed); every byte of one interleave chunk has the same channel, and
  // the offset in the chunk is kept.
  uint64_t channel_local(uint64_t addr, uint32_t* channel) const;
  // The slice and slice-local address of channel-local address `la` of channel `channel`.
  SliceAddress in_channel(uint32_t channel, uint64_t la) const {
    const uint64_t line = la >> line_shift_;
    SliceAddress s;
    uint64_t local_line = 0;
    if (subpartitions_pow2_) {
      s.slice = channel * subpartitions_ + uint32_t(line & (subpartitions_ - 1));
      local_line = line >> subpartition_shift_;
    } else {
      s.slice = channel * subpartitions_ + uint32_t(line % subpartitions_);
      local_line = line / subpartitions_;
    }
    s.local = (local_line << line_shift_) | (la & (line_bytes_ - 1));
    return s;
  }
  uint32_t interleave_bytes() const { return interleave_; }
  // The L2 line size: every byte of one line has the same slice, and the line
  // offset is kept in the slice-local address (the interleave is whole lines).
  uint32_t line_bytes() const { return line_bytes_; }
  // Inverse of slice_local: the global address of local address `local` in slice `slice`.
  uint64_t global(uint32_t slice, uint64_t local) const;

  // Set index of slice-local line number `local_line` in a cache of 2^set_bits
  // sets under `hash` (the L2's l2.set_hash).
  static uint32_t l2_set(uint64_t local_line, IndexHash hash, uint32_t set_bits) {
    return index_hash(hash, local_line, set_bits);
  }

 private:
  // (channel, local_chunk) of chunk index k, and back.
  [[gnu::always_inline]] void split_chunk(uint64_t chunk, uint32_t* channel, uint64_t* local_chunk) const;
  uint64_t join_chunk(uint32_t channel, uint64_t local_chunk) const;
  [[gnu::always_inline]] uint32_t block_hash(uint64_t block) const;

  IndexHash partition_hash_;
  IndexHash bank_hash_;
  uint32_t channels_;
  uint32_t pow2_bits_;  // a: channels = 2^a * m, m odd
  uint32_t subpartitions_;
  uint32_t interleave_;
  uint32_t line_bytes_;
  uint32_t banks_;
  uint32_t bank_bits_;
  // Powers of two divide by shifts: interleave and line size always (validated),
  // channels and sub-partitions when they are.
  uint32_t interleave_shift_;
  uint32_t line_shift_;
  bool channels_pow2_;
  bool subpartitions_pow2_;
  uint32_t subpartition_shift_;
};

// AddressMap::locate remembering the last interleave chunk it hashed: the
// bytes of one chunk (one or more lines) share a channel, so the sectors and
// lines of a chunk, coming one after another, take one partition hash.
class LineLocator {
 public:
  explicit LineLocator(const AddressMap& map) : map_(map), offset_mask_(uint64_t(map.interleave_bytes()) - 1) {}
  SliceAddress locate(uint64_t addr) {
    const uint64_t chunk = addr & ~offset_mask_;
    if (chunk != chunk_) {
      chunk_ = chunk;
      local_chunk_ = map_.channel_local(chunk, &channel_);
    }
    return map_.in_channel(channel_, local_chunk_ | (addr & offset_mask_));
  }

 private:
  const AddressMap& map_;
  uint64_t offset_mask_;          // interleave_bytes - 1
  uint64_t chunk_ = UINT64_MAX;   // (no chunk starts there: chunk addresses have the offset bits clear)
  uint64_t local_chunk_ = 0;      // channel_local(chunk_)
  uint32_t channel_ = 0;          // the channel of chunk_
};

}  // namespace lockstep
