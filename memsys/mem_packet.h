#pragma once
// The unit of traffic below the L1: one 32 B sector. The L1 sends one packet
// per missed (or written) sector; the crossbars, L2 slices and DRAM channels
// move and serve sectors. Plain data, copied by value through latched ports.
#include <cstdint>

#include "configs/spec/packet_bytes.h"

namespace lockstep {

enum class MemPacketType : uint8_t {
  kRead = 0,     // SM -> L2: read one sector
  kWrite,        // SM -> L2: write the bytes of `byte_mask` in one sector
  kAtomic,       // SM -> L2: read-modify-write at the L2 atomic unit (atomics and reductions)
  kReadReply,    // L2 -> SM: the sector's data
  kWriteAck,     // L2 -> SM: the write reached the L2
  kAtomicReply,  // L2 -> SM: the atomic's old value
};

// Per-kernel statistics slots: every packet carries the slot of the kernel
// that issued it, and each block counts into that slot's counters.
inline constexpr uint32_t kStatSlots = 16;

struct MemPacket {
  uint64_t addr = 0;       // sector-aligned byte address
  uint32_t byte_mask = 0;  // bytes of the sector written (kWrite, kAtomic); 0 for reads
  uint32_t token = 0;      // the SM's id for the access, returned unchanged in the reply
  uint16_t sm = 0;         // requesting SM; replies go back to it
  uint8_t stat_slot = 0;   // statistics slot of the issuing kernel (< kStatSlots)
  MemPacketType type = MemPacketType::kRead;
  bool l1_allocate = false;  // the reply fills the requesting SM's L1 (a cached read)

  bool is_reply() const { return type >= MemPacketType::kReadReply; }
  // Bytes on the wire: a header, plus a sector of data for writes, atomics and data replies.
  uint32_t bytes() const {
    const bool data = type == MemPacketType::kWrite || type == MemPacketType::kAtomic ||
                      type == MemPacketType::kReadReply || type == MemPacketType::kAtomicReply;
    return kPacketHeaderBytes + (data ? kPacketSectorBytes : 0);
  }
  // The reply a request turns into (same address, token, SM and slot).
  MemPacket reply() const {
    MemPacket r = *this;
    r.type = type == MemPacketType::kRead    ? MemPacketType::kReadReply
             : type == MemPacketType::kWrite ? MemPacketType::kWriteAck
                                             : MemPacketType::kAtomicReply;
    return r;
  }
};

}  // namespace lockstep
