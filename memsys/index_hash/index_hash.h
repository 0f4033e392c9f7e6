#pragma once
// Set, channel and bank indices from an address under an IndexHash policy
// (policy_registry.h): one file per hash in this folder, selected by a switch
// (called per access: no virtual call).
#include <cstdint>

#include "memsys/index_hash/ipoly.h"
#include "memsys/index_hash/linear.h"
#include "memsys/index_hash/xor_fold.h"
#include "configs/spec/memory_spec.h"

namespace lockstep {

// `bits`-bit index of `value` by a hash: linear = low bits; ipoly = ipoly_reduce;
// xor = XOR of every `bits`-bit group of value. Each is a bijection on the low
// bits for fixed higher bits.
// Inline: called per access (set indices, address mapping).
[[gnu::always_inline]] inline uint32_t index_hash(IndexHash hash, uint64_t value, uint32_t bits) {
  if (bits == 0) return 0;
  switch (hash) {
    case IndexHash::kLinear:
      return linear_index(value, bits);
    case IndexHash::kIpoly:
      return bits <= kMaxIpolyBits ? ipoly_index(value, bits) : ipoly_reduce(value, bits);  // the latter throws
    case IndexHash::kXor:
      return xor_fold(value, bits);
  }
  return 0;
}

}  // namespace lockstep
