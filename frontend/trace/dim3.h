#pragma once
#include <compare>
#include <cstdint>
#include <cstdio>
#include <string>

namespace lockstep {

// A CUDA grid or block extent, or a block index.
struct Dim3 {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;

  // x * y * z, UINT64_MAX when that does not fit (three 32-bit extents can
  // reach 2^96): a count never wraps to a small number.
  uint64_t volume() const {
    const uint64_t xy = uint64_t(x) * y;  // fits: at most (2^32 - 1)^2
    return z != 0 && xy > UINT64_MAX / z ? UINT64_MAX : xy * z;
  }
  // Linear index of `idx` inside this extent (x fastest, as CUDA numbers blocks).
  uint64_t linear(const Dim3& idx) const { return idx.x + uint64_t(x) * (idx.y + uint64_t(y) * idx.z); }
  std::string str() const {
    char buf[40];
    std::snprintf(buf, sizeof buf, "(%u,%u,%u)", x, y, z);
    return buf;
  }
  auto operator<=>(const Dim3&) const = default;
};

}  // namespace lockstep
