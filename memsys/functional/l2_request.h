#pragma once
// A request an SM's L1 sends to the L2 in the cache-functional memory model:
// one sector, tagged with the SM's issue step (its count of memory
// instructions so far in the kernel) so that the L2 can take every SM's
// requests in one deterministic order, step by step (functional_l2.h).
#include <cstdint>

namespace lockstep {

enum class L2RequestType : uint8_t { kRead = 0, kWrite, kAtomic };

struct L2Request {
  uint64_t step = 0;       // the SM's memory-instruction count when it issued the request
  uint64_t local = 0;      // the sector's slice-local address (AddressMap::slice_local)
  uint32_t byte_mask = 0;  // bytes written (write, atomic)
  L2RequestType type = L2RequestType::kRead;
};

}  // namespace lockstep
