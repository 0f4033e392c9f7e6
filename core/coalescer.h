#pragma once
// Sub-warp coalescing (papers/volta-memory-system.txt §III-A): the lanes of a
// warp are taken in groups of N consecutive threads (8 on Pascal and later,
// 32 on Kepler); each group's accesses become one request per distinct 32 B
// sector it touches, carrying the bytes of the sector the group accesses.
#include <cstdint>
#include <span>
#include <vector>

namespace lockstep {

inline constexpr uint32_t kSectorBytes = 32;

struct SectorAccess {
  uint64_t sector = 0;     // sector number (address / 32)
  uint32_t byte_mask = 0;  // bytes of the sector the group touches
};

// Appends the sector requests of one warp instruction to `out`: groups in
// lane order, sectors in first-touch order inside a group. `addrs` holds one
// address per active lane of `mask`, lowest lane first.
void coalesce(std::span<const uint64_t> addrs, uint32_t mask, uint32_t access_bytes, uint32_t group_threads,
              std::vector<SectorAccess>& out);
// coalesce() of the addresses first + k * stride (k = 0, 1, ... over the
// active lanes of `mask`, lowest lane first): the same requests, without the
// addresses written out when the lanes access back-to-back bytes. True when
// the appended requests are whole sectors, consecutive, in ascending order
// (a full warp reading back-to-back whole sectors per group; false says nothing).
bool coalesce_strided(uint64_t first, uint64_t stride, uint32_t mask, uint32_t access_bytes, uint32_t group_threads,
                      std::vector<SectorAccess>& out);

struct WarpTrace;
struct WarpInstruction;
// coalesce() of memory instruction `wi` of `trace` (no addresses when
// !has_addresses: constant loads and the like): from the stride form, as
// coalesce_strided(), when the trace stores the lanes so, else from the
// lanes written out. Returns coalesce_strided()'s answer (false otherwise).
bool coalesce_instruction(const WarpTrace& trace, const WarpInstruction& wi, bool has_addresses, uint32_t access_bytes,
                          uint32_t group_threads, std::vector<SectorAccess>& out);

}  // namespace lockstep
