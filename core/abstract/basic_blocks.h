#pragma once
// A kernel's basic blocks, found from the paths its warps took (GATSim §II-A).
// Each warp's trace is cut into fall-through runs: a run continues while the
// next instruction is the one at PC + 16 that the kernel falls through to
// (the first such successor seen; a second static instruction at the same
// PC breaks the run). A run's first instruction starts a block and its last
// ends one; a branch (InstKind::kBranch, kExit) ends a block; an instruction
// that two others fall through to starts one. A warp's path is then a
// sequence of whole blocks (BasicBlocks::for_each_block).
#include <cstdint>
#include <span>
#include <vector>

#include "core/kernel_program.h"
#include "frontend/trace/block_trace.h"
#include "frontend/trace/static_table.h"

namespace lockstep {

inline constexpr uint32_t kNoStatic = UINT32_MAX;

// The fall-through successor of each static instruction, learnt from the
// traces, and the cutting of warp traces into fall-through runs.
class FallThrough {
 public:
  // Takes in static instructions added to `table` since the last call.
  void grow(const StaticTable& table);
  // The static instruction `s` falls through to (kNoStatic: none seen).
  uint32_t next(uint32_t s) const { return next_[s]; }
  // Calls run(first, last, length) for each fall-through run of `warp`, in order.
  template <typename Run>
  void runs(const WarpTrace& warp, Run&& run);

 private:
  std::vector<uint64_t> pc_;
  std::vector<uint32_t> next_;
};

struct BasicBlock {
  uint32_t begin = 0;  // first instruction in BasicBlocks::insts()
  uint32_t size = 0;
};

class BasicBlocks {
 public:
  // Collects the runs of every warp, then build().
  class Builder {
   public:
    void add_run(uint32_t first, uint32_t last);
    // `program` resolves every static id the runs name; blocks come in PC order.
    BasicBlocks build(const StaticTable& table, const KernelProgram& program, const FallThrough& fall) const;

   private:
    std::vector<uint8_t> leader_, end_;
    void mark(std::vector<uint8_t>& v, uint32_t s) {
      if (v.size() <= s) v.resize(size_t(s) + 1, 0);
      v[s] = 1;
    }
  };

  std::span<const BasicBlock> blocks() const { return blocks_; }
  // Static ids of every block's instructions, block after block (PC order).
  std::span<const uint32_t> insts() const { return insts_; }
  // The block that starts with static instruction `s` (kNoStatic: none).
  uint32_t block_starting_at(uint32_t s) const { return s < starts_.size() ? starts_[s] : kNoStatic; }
  // Calls block(id) for each block of a fall-through run from `first` of
  // `length` instructions; false if the run is not made of whole blocks.
  template <typename Block>
  bool for_each_block(uint32_t first, uint32_t length, const FallThrough& fall, Block&& block) const;

 private:
  std::vector<BasicBlock> blocks_;
  std::vector<uint32_t> insts_;
  std::vector<uint32_t> starts_;  // static id -> block it starts
};

template <typename Run>
void FallThrough::runs(const WarpTrace& warp, Run&& run) {
  const std::vector<WarpInstruction>& insts = warp.insts;
  if (insts.empty()) return;
  uint32_t first = insts[0].static_id, prev = first, length = 1;
  for (size_t i = 1; i < insts.size(); ++i) {
    const uint32_t s = insts[i].static_id;
    uint32_t& guess = next_[prev];
    if (guess == kNoStatic && pc_[s] == pc_[prev] + 16) guess = s;
    if (guess == s) {
      ++length;
    } else {
      run(first, prev, length);
      first = s;
      length = 1;
    }
    prev = s;
  }
  run(first, prev, length);
}

template <typename Block>
bool BasicBlocks::for_each_block(uint32_t first, uint32_t length, const FallThrough& fall, Block&& block) const {
  uint32_t s = first;
  while (length > 0) {
    const uint32_t b = block_starting_at(s);
    if (b == kNoStatic || blocks_[b].size > length) return false;
    block(b);
    length -= blocks_[b].size;
    if (length > 0) s = fall.next(insts_[blocks_[b].begin + blocks_[b].size - 1]);
    if (s == kNoStatic) return false;
  }
  return true;
}

}  // namespace lockstep
