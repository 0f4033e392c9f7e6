#pragma once
// A request an SM's L1 sends to the L2 in the cache-functional memory model:
// sectors of one L2 line, tagged with the SM's issue step (its count of
// memory instructions so far in the kernel) so that the L2 can take every
// SM's requests in one deterministic order, step by step (functional_l2.h).
// One request stands for the per-sector requests of one line that an SM
// sends to a slice one after another at one step, of one type and with the
// same bytes, each sector once: the slice's answer to them does not depend
// on their order (FunctionalL2Slice).
#include <cstdint>

namespace lockstep {

enum class L2RequestType : uint8_t { kRead = 0, kWrite, kAtomic };

struct L2Request {
  uint64_t line = 0;       // the line's slice-local address (AddressMap::slice_local), line-aligned
  uint32_t step = 0;       // the SM's memory-instruction count in the kernel when it issued the request
  uint32_t sectors = 0;    // bit s: sector s of the line (L2 sectors)
  uint32_t byte_mask = 0;  // bytes written in each of the sectors (write, atomic)
  L2RequestType type = L2RequestType::kRead;
};
// A chunk's requests are what the memory model holds most of (one chunk of
// steps of every SM, functional_gpu.h): 24 bytes each.
static_assert(sizeof(L2Request) == 24);

// The most memory instructions one SM may look up in one kernel (a step fits 32 bits).
inline constexpr uint64_t kMaxStepsPerKernel = UINT32_MAX;

}  // namespace lockstep
