#pragma once
// The warps of each sub-core of an abstract-model SM that may issue now, as
// one bit set per sub-core over the warp's index in it (at most 64 warps per
// sub-core), and per issue resource the warps whose next instruction needs
// it, so that a resource refused in a cycle removes all its warps at once.
//
// A warp is ready when it has instructions left to issue, is not at a block
// barrier and does not wait in its sub-core's wake calendar
// (core/abstract/wake_calendar.h). The calendar hands back the warps due in a
// cycle as one bit set, which joins the ready set with one OR: nothing is done
// per warp there. The owner keeps the resource of each warp's next
// instruction (set_resource) whenever it changes.
#include <bit>
#include <cstdint>
#include <vector>

namespace lockstep {

class ReadyWarps {
 public:
  // `resources`: the number of resource bits (bit r of a resource mask).
  ReadyWarps(uint32_t subcores, uint32_t resources)
      : resources_(resources), ready_(subcores, 0), needs_(size_t(subcores) * resources, 0), resource_(size_t(subcores) * 64, 0) {}

  // Sub-core `sc`'s ready warps (bit i: index i).
  uint64_t of(uint32_t sc) const { return ready_[sc]; }
  // Those whose next instruction needs none of the resources in `blocked`.
  uint64_t eligible(uint32_t sc, uint32_t blocked) const {
    uint64_t bits = ready_[sc];
    const uint64_t* needs = &needs_[size_t(sc) * resources_];
    for (; blocked != 0; blocked &= blocked - 1) bits &= ~needs[std::countr_zero(blocked)];
    return bits;
  }
  // Warp `index` of sub-core `sc` is ready and its next instruction needs none of the resources in `blocked`.
  bool eligible(uint32_t sc, uint32_t index, uint32_t blocked) const {
    return (ready_[sc] >> index & 1) && !(resource_[size_t(sc) * 64 + index] & blocked);
  }

  // The resource mask of warp `index`'s next instruction (set_resource).
  uint32_t resource(uint32_t sc, uint32_t index) const { return resource_[size_t(sc) * 64 + index]; }

  void add(uint32_t sc, uint64_t bits) { ready_[sc] |= bits; }
  void remove(uint32_t sc, uint32_t index) { ready_[sc] &= ~(uint64_t(1) << index); }

  // The resource mask (one bit, or 0 for none) of warp `index`'s next instruction.
  void set_resource(uint32_t sc, uint32_t index, uint32_t resource) {
    uint32_t& now_needs = resource_[size_t(sc) * 64 + index];
    if (now_needs == resource) return;
    uint64_t* needs = &needs_[size_t(sc) * resources_];
    const uint64_t bit = uint64_t(1) << index;
    if (now_needs != 0) needs[std::countr_zero(now_needs)] &= ~bit;
    if (resource != 0) needs[std::countr_zero(resource)] |= bit;
    now_needs = resource;
  }

 private:
  uint32_t resources_;
  std::vector<uint64_t> ready_;     // per sub-core
  std::vector<uint64_t> needs_;     // per sub-core, per resource bit
  std::vector<uint32_t> resource_;  // per sub-core x 64 warp indexes: the resource mask its bit in needs_ stands for
};

}  // namespace lockstep
