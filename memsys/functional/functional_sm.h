#pragma once
// One SM of the cache-functional memory model (papers/cache-functional-
// memory-model.txt §4): its resident blocks' warps take turns, each turn a
// warp runs up to and including its next memory instruction (a round robin
// over the resident warps at memory-instruction granularity, in residency
// order); a memory instruction's lanes are coalesced into sectors by the
// LD/ST unit's coalescer (core/coalescer.h) and looked up in the SM's L1 by
// the L1's own rules (core/l1_cache_policy.h), with no timing. Loads that
// miss are requested from the L2 and filled when the instruction's lookups
// are done (a sector two lanes groups of one instruction miss on is fetched
// once: the data of an instruction's own miss cannot be there for itself);
// stores write through; atomics go to the L2. The sectors an instruction
// takes one after another in one L1 line are looked up together (one tag
// lookup: the same outcome, nothing else touches the L1 in between; for a
// cached load also when a sector comes again, as the boundary sectors of a
// misaligned warp's lane groups do: it finds what it found the first time,
// and each access is counted), and
// those it sends to one L2 line one after another go as one request. What goes to the L2 is
// appended, per slice, with the SM's step (its memory instructions so far
// in the kernel), for the L2 to merge every SM's requests in one order.
//
// Blocks come from the dispatcher in the order they are placed on this SM
// (give()); one becomes resident when a slot frees (up to the kernel's
// blocks per SM). When a block retires and none is queued, run() stops
// right there until the next is given (or the kernel has no more), so what
// the SM does does not depend on when blocks are handed over; nor does it
// depend on where run() stops for a step limit. The SM
// allocates nothing per instruction; it keeps at most its resident blocks
// and those given ahead.
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "configs/spec/gpu_spec.h"
#include "core/coalescer.h"
#include "core/kernel_program.h"
#include "core/l1_cache_policy.h"
#include "core/occupancy.h"
#include "core/sm_stats.h"
#include "frontend/trace/block_trace.h"
#include "frontend/trace/block_segments.h"
#include "frontend/trace/held_segments.h"
#include "memsys/address_map.h"
#include "memsys/functional/l2_request.h"

namespace lockstep {

class FunctionalSm {
 public:
  FunctionalSm(const GpuSpec& spec, const AddressMap& map);

  // A new kernel: `program` resolves its instructions; the L1 is invalidated
  // and sized from the carve-out; up to occupancy.blocks_per_sm blocks are
  // resident at once. `segments`: the later segments of blocks given as their
  // first (null when blocks come whole); a warp goes on to its next
  // segment's part when it ends one, as if the trace were whole.
  void start_kernel(const KernelProgram& program, const Occupancy& occupancy, BlockSegments* segments = nullptr);
  // The next block placed on this SM.
  void give(std::unique_ptr<BlockTrace> block) { queued_.push_back(std::move(block)); }
  // Runs until a retired block's slot needs a block not given yet (when
  // `more_coming`: starved()), until every given block has retired (idle()),
  // or until its step reaches `step_limit` (checked before each warp's turn).
  // A starved SM stays so, doing nothing, until its next block is given or,
  // with `more_coming` false, none will come.
  void run(bool more_coming, uint64_t step_limit = UINT64_MAX);
  // No block resident or queued.
  bool idle() const { return resident_blocks_ == 0 && queued_.empty(); }
  // The last run() stopped for a block not given yet, and none has been given since.
  bool starved() const { return starved_ && queued_.empty(); }
  uint64_t step() const { return step_; }

  // The L2 requests made since the last clear_requests(), for `slice`, in issue order.
  std::span<const L2Request> requests(uint32_t slice) const { return requests_[slice]; }
  // `release`: also gives their storage back (vectors keep the largest
  // batch they held; 80 SMs x 64 slices of them otherwise hold the largest
  // of a whole run).
  void clear_requests(bool release = false);
  // Storage of retired blocks, for the reader to decode into.
  void take_spent_blocks(std::vector<std::unique_ptr<BlockTrace>>& into);
  SmStats take_stats();
  const SectorCache& l1() const { return l1_.cache(); }

 private:
  struct Warp {
    const WarpTrace* trace = nullptr;  // its trace, or the part of it in the segment it reads
    uint32_t next = 0;    // next instruction
    uint32_t block = 0;   // slot of its block
    bool done = false;
    bool segments_more = false;  // a later segment has more of its trace
    uint32_t index = 0;          // in its block
    uint32_t next_segment = 1;
  };
  struct BlockSlot {
    std::unique_ptr<BlockTrace> trace;  // the block, or its first segment
    uint32_t warps_left = 0;
    HeldSegments later;  // its later segments taken and still read
    std::vector<uint32_t> reading;  // per warp of the block: the segment it reads (UINT32_MAX once ended)
  };

  // Fills free slots from the queue; false when a slot stays free.
  void place_queued();
  void place(uint32_t slot, std::unique_ptr<BlockTrace> block);
  // Runs warp `w` up to and including its next memory instruction; true when it ends.
  bool turn(Warp& w);
  // The warp's next segment's part: taken when it is the first of its block to
  // need it; segments no warp of the block reads any more go.
  void next_part(Warp& w);
  void memory_instruction(const TimedInstruction& ti, const WarpInstruction& wi, const WarpTrace& trace);
  // memory_instruction() of a cached load of every lane whose addresses are
  // `first` + lane x `bytes` (the access size): the same lookups, counts and
  // requests, from the sector ranges of its lane groups without listing
  // their accesses (back_to_back_loads_ only).
  void back_to_back_load(const TimedInstruction& ti, SmAccessOp op, uint64_t first, uint32_t bytes);
  // memory_instruction() of a store of every lane whose addresses are `first`
  // + lane x `bytes`, each lane group's bytes whole sectors (`first` and the
  // group's bytes multiples of 32): written through line by line.
  void whole_sector_store(const TimedInstruction& ti, SmAccessOp op, uint64_t first, uint32_t bytes);
  // The instruction's misses (missed_) are filled, and forgotten.
  void fill_missed();
  // The accesses sectors_[begin, end), each a different sector of the L1 line
  // `line` (`sectors`: bit s for sector s), as the L1 takes them one by one.
  void line_accesses(L1Access kind, bool global_load, uint64_t line, uint32_t sectors, size_t begin, size_t end);
  // The sectors `sectors` of L1 line `line` among `accesses` (its accesses
  // in order) to the L2, each with its access's bytes.
  void send_sectors(L2RequestType type, uint64_t line, uint32_t sectors, std::span<const SectorAccess> accesses);
  // Sectors of one L2 line to slice `slice`: they join the SM's last request
  // to the slice when that is for the same line, step, type and bytes and
  // holds none of them (the slice takes them the same way, l2_request.h).
  void add_request(uint32_t slice, L2RequestType type, uint64_t line, uint32_t sectors, uint32_t byte_mask);

  const GpuSpec& spec_;
  L1CachePolicy l1_;
  const KernelProgram* program_ = nullptr;
  BlockSegments* segments_ = nullptr;
  uint32_t blocks_per_sm_ = 0;
  std::vector<BlockSlot> slots_;
  uint32_t resident_blocks_ = 0;
  std::deque<std::unique_ptr<BlockTrace>> queued_;
  std::vector<std::unique_ptr<BlockTrace>> spent_;
  SegmentSpares spares_;  // storage of the blocks' segments no warp reads any more
  std::vector<Warp> warps_;  // resident warps in residency order (ended ones dropped after each pass)
  size_t position_ = 0;      // the warp whose turn is next
  uint64_t step_ = 0;        // memory instructions looked up in this kernel
  bool starved_ = false;
  std::vector<SectorAccess> sectors_;  // scratch: one instruction's coalesced sectors
  struct LineSectors {
    uint64_t line;
    uint32_t sectors;
  };
  std::vector<LineSectors> missed_;    // scratch: sectors one instruction fetched, filled at its end
  std::vector<std::vector<L2Request>> requests_;  // per slice
  LineLocator locator_;  // the slice of each request (a line's sectors mostly come one after another)
  const uint64_t l2_line_mask_;     // l2.line_bytes - 1
  const uint32_t l2_sector_shift_;  // log2(l2.sector_bytes)
  const bool same_lines_;           // the L1's lines and sectors are the L2's
  const bool l1_sectors_are_32_;    // l1d.sector_bytes is the coalescer's kSectorBytes
  const uint32_t l1_sectors_per_line_;
  const bool back_to_back_loads_;  // same_lines_ and l1_sectors_are_32_: back_to_back_load() applies
  SmStats stats_;
};

}  // namespace lockstep
