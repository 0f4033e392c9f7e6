#pragma once
// The sizes of a memory packet on the wire (memsys/mem_packet.h): the
// interconnect's spec is checked against them, the crossbar sizes its flits
// by them. Here, below both, so the spec layer needs nothing of memsys.
#include <cstdint>

namespace lockstep {

inline constexpr uint32_t kPacketHeaderBytes = 8;   // address, type, ids
inline constexpr uint32_t kPacketSectorBytes = 32;  // data payload of one sector

}  // namespace lockstep
