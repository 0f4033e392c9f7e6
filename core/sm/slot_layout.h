#pragma once
// Where each warp slot of an SM sits: sub-core slot % subcores, index
// slot / subcores within it. Tables, so that the cycle loop divides by no
// run-time sub-core count.
#include <cstdint>
#include <vector>

namespace lockstep {

class SlotLayout {
 public:
  SlotLayout(uint32_t slots, uint32_t subcores) : subcores_(subcores), subcore_(slots), index_(slots) {
    for (uint32_t s = 0; s < slots; ++s) {
      subcore_[s] = uint16_t(s % subcores);
      index_[s] = uint16_t(s / subcores);
    }
  }
  uint32_t subcore(uint32_t slot) const { return subcore_[slot]; }
  uint32_t index(uint32_t slot) const { return index_[slot]; }
  uint32_t slot(uint32_t subcore, uint32_t index) const { return subcore + index * subcores_; }

 private:
  uint32_t subcores_;
  std::vector<uint16_t> subcore_, index_;
};

}  // namespace lockstep
