#include "memsys/mshr_table.h"

#include "memsys/mem_packet.h"

namespace lockstep {

// The two tables the memory system uses: the L1's (access tokens) and the L2's (packets).
template class MshrTable<uint32_t>;
template class MshrTable<MemPacket>;

}  // namespace lockstep
