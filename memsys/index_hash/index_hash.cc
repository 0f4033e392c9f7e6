#include "memsys/index_hash/index_hash.h"

#include "memsys/index_hash/linear.h"
#include "memsys/index_hash/xor_fold.h"

namespace lockstep {

uint32_t index_hash(IndexHash hash, uint64_t value, uint32_t bits) {
  if (bits == 0) return 0;
  switch (hash) {
    case IndexHash::kLinear:
      return linear_index(value, bits);
    case IndexHash::kIpoly:
      return bits <= kMaxIpolyBits ? ipoly_index(value, bits) : ipoly_reduce(value, bits);  // the latter throws
    case IndexHash::kXor:
      return xor_fold(value, bits);
  }
  return 0;
}

}  // namespace lockstep
