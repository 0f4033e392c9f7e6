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

  uint64_t volume() const { return uint64_t(x) * y * z; }
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
