#pragma once
// IPOLY index hash (Rau; Accel-Sim's ipoly_hash_function): value(x) mod P(x)
// over GF(2), P the fixed irreducible polynomial of degree `bits` (1 .. 20):
// a `bits`-bit result; bits = 0 gives 0.
#include <array>
#include <cstdint>

namespace lockstep {

inline constexpr uint32_t kMaxIpolyBits = 20;

// Table-driven: one lookup per byte of value (the reduction is linear over GF(2)).
uint32_t ipoly_reduce(uint64_t value, uint32_t bits);
// The same result by bit-serial long division (one step per bit): the
// definition ipoly_reduce is checked against; slow, for tests.
uint32_t ipoly_reduce_reference(uint64_t value, uint32_t bits);

namespace detail {
// Reduction is linear over GF(2): v mod P = XOR over the bytes b_i of v of
// (b_i x^(8i)) mod P. kIpolyByteTables[bits][i][b] = (b x^(8i)) mod P_bits.
using IpolyByteTables = std::array<std::array<uint32_t, 256>, 8>;
extern const std::array<IpolyByteTables, kMaxIpolyBits + 1> kIpolyByteTables;
}  // namespace detail

// ipoly_reduce for 1 <= bits <= kMaxIpolyBits (unchecked), inlined where an index is hashed per access.
// A zero byte contributes nothing, so values below 2^32 (line numbers of
// slice-local addresses, mostly) take half the lookups.
inline uint32_t ipoly_index(uint64_t value, uint32_t bits) {
  const detail::IpolyByteTables& t = detail::kIpolyByteTables[bits];
  if (value >> 32 == 0)
    return t[0][value & 0xff] ^ t[1][value >> 8 & 0xff] ^ t[2][value >> 16 & 0xff] ^ t[3][value >> 24 & 0xff];
  return (t[0][value & 0xff] ^ t[1][value >> 8 & 0xff] ^ t[2][value >> 16 & 0xff] ^ t[3][value >> 24 & 0xff]) ^
         (t[4][value >> 32 & 0xff] ^ t[5][value >> 40 & 0xff] ^ t[6][value >> 48 & 0xff] ^ t[7][value >> 56]);
}

}  // namespace lockstep
