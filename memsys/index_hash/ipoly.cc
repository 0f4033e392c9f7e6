#include "memsys/index_hash/ipoly.h"

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

// Long division over GF(2), from the top set bit down: one step per bit.
constexpr uint32_t ipoly_reduce_bitwise(uint64_t value, uint32_t bits) {
  const uint64_t poly = kIrreducible[bits];
  for (int top = 63 - std::countl_zero(value); value != 0 && top >= int(bits); --top)
    if (value >> top & 1) value ^= poly << (top - int(bits));
  return uint32_t(value);
}

// Each table entry is the XOR of the residues x^k mod P_bits of the set bits k
// of b x^(8i): that of b without its top bit, and that bit's residue (one
// XOR an entry; the tables are built at every start).
std::array<detail::IpolyByteTables, kMaxIpolyBits + 1> make_ipoly_tables() {
  std::array<detail::IpolyByteTables, kMaxIpolyBits + 1> tables{};
  for (uint32_t bits = 1; bits <= kMaxIpolyBits; ++bits) {
    uint64_t residue = 1;  // x^k mod P_bits, k = 8i + j in turn
    for (uint32_t i = 0; i < 8; ++i) {
      std::array<uint32_t, 256>& table = tables[bits][i];
      table[0] = 0;
      for (uint32_t j = 0; j < 8; ++j) {
        for (uint32_t b = 1u << j; b < 2u << j; ++b) table[b] = table[b ^ (1u << j)] ^ uint32_t(residue);
        residue <<= 1;  // times x, reduced
        if (residue >> bits & 1) residue ^= kIrreducible[bits];
      }
    }
  }
  return tables;
}

void check_bits(uint32_t bits) {
  if (bits > kMaxIpolyBits) throw std::invalid_argument("ipoly_reduce: more than 20 index bits");
}

}  // namespace

// Built once at start-up (a constant-evaluated table exceeds clang's constexpr step limit).
const std::array<detail::IpolyByteTables, kMaxIpolyBits + 1> detail::kIpolyByteTables = make_ipoly_tables();

uint32_t ipoly_reduce_reference(uint64_t value, uint32_t bits) {
  if (bits == 0) return 0;
  check_bits(bits);
  return ipoly_reduce_bitwise(value, bits);
}

uint32_t ipoly_reduce(uint64_t value, uint32_t bits) {
  if (bits == 0) return 0;
  check_bits(bits);
  return ipoly_index(value, bits);
}

}  // namespace lockstep
