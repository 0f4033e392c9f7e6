#pragma once
// Where each warp slot of an SM sits: sub-core slot % subcores, index
// slot / subcores within it. By shifts when the sub-core count is a power of
// two (core/divisor.h): no table to read in the cycle loop.
#include <cstdint>

#include "core/divisor.h"

namespace lockstep {

class SlotLayout {
 public:
  SlotLayout(uint32_t /*slots*/, uint32_t subcores) : subcores_(subcores) {}
  uint32_t subcore(uint32_t slot) const { return uint32_t(subcores_.mod(slot)); }
  uint32_t index(uint32_t slot) const { return uint32_t(subcores_.div(slot)); }
  uint32_t slot(uint32_t subcore, uint32_t index) const { return subcore + index * uint32_t(subcores_.d); }

 private:
  Divisor subcores_;
};

}  // namespace lockstep
