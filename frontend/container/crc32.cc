#include "frontend/container/crc32.h"

#include <array>
#include <cstring>

namespace lockstep {
namespace {

// Slicing-by-8 tables, built at compile time.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  return t;
}

constexpr Tables kTables = make_tables();

}  // namespace

uint32_t crc32(const void* data, size_t size, uint32_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~seed;
  while (size >= 8) {
    // Little-endian assembly of the two words keeps this byte-order independent.
    const uint32_t lo = c ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
    const uint32_t hi = uint32_t(p[4]) | uint32_t(p[5]) << 8 | uint32_t(p[6]) << 16 | uint32_t(p[7]) << 24;
    c = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^ kTables[4][lo >> 24] ^
        kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^ kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
    p += 8;
    size -= 8;
  }
  while (size--) c = kTables[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

}  // namespace lockstep
