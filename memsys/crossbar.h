#pragma once
// One subnet of the SM <-> L2 interconnect: an N-input x M-output crossbar
// moving MemPackets in flits of icnt.flit_bytes (a packet is
// ceil(bytes() / flit_bytes) flits). The GPU has two: requests (SM clusters
// -> L2 slices) and replies (L2 slices -> clusters). Accel-Sim models the
// Volta..Ampere network as such a crossbar with iSLIP arbitration and one
// request and one reply subnet (GPU-FACTS §3; Accel-Sim's local crossbar).
//
// Rules, per interconnect cycle (cycle(now)):
// - Buffers. Each input port buffers up to icnt.in_buffer flits, kept as one
//   FIFO per output (virtual output queues), so a packet for a busy output
//   never blocks one for an idle output, and packets of one (input, output)
//   pair leave in injection order. A packet injected at `now` may cross from
//   cycle(now) on.
// - Arbitration: one iteration of iSLIP (McKeown, "The iSLIP scheduling
//   algorithm for input-queued switches", 1999), over the inputs and outputs
//   not already carrying a packet. Request: an input requests every output it
//   holds a packet for. Grant: each such output grants the first requesting
//   input at or after its grant pointer, provided its output buffer can hold
//   every flit of that input's head packet (an output that cannot, the "full"
//   output, grants nothing this cycle). Accept: an input granted by several
//   outputs accepts the first at or after its accept pointer. Pointers move
//   only on an accepted grant: the output's to one past the input, the
//   input's to one past the output. Grants that are not accepted are lost
//   for the cycle (no second iteration).
// - Transfer (wormhole on a crossbar). An accepted grant connects input and
//   output until the packet's last flit has crossed; each connected pair
//   moves one flit per cycle, starting in the cycle of the grant. So an input
//   sends at most one flit per cycle and an output takes at most one, and the
//   flits of two packets never interleave at an output. The output buffer
//   space of the whole packet is reserved at the grant, so a connected packet
//   never stops mid-way.
// - Ejection. A packet is visible at its output icnt.latency cycles after its
//   last flit crossed (a packet of F flits injected at t into an idle
//   crossbar is visible at t + F - 1 + latency), in crossing order; it holds
//   its flits of output buffer until pop_output().
// - Statistics, into each packet's stat_slot: packets and flits delivered
//   (counted when the last flit crosses; request_* or reply_*), and
//   stall_cycles: cycles an input held packets but sent no flit (counted
//   in the slot of the head packet its accept pointer favours).
#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "memsys/bit_set.h"
#include "memsys/mem_packet.h"
#include "configs/spec/memory_spec.h"
#include "memsys/crossbar_stats.h"
#include "memsys/zeroed_array.h"

namespace lockstep {

class Crossbar {
 public:
  // `replies`: the L2 -> SM subnet (counts reply_*), else SM -> L2 (request_*).
  // Throws std::invalid_argument for zero ports or buffers smaller than the largest packet.
  Crossbar(uint32_t inputs, uint32_t outputs, const IcntSpec& spec, bool replies = false);

  uint32_t inputs() const { return inputs_; }
  uint32_t outputs() const { return outputs_; }
  // Flits packet p occupies on the wire and in the buffers: ceil(p.bytes() / flit_bytes).
  uint32_t flits(const MemPacket& p) const { return type_flits_[size_t(p.type)]; }

  // Sender side: the input buffer has room for every flit of p.
  bool can_inject(uint32_t input, const MemPacket& p) const { return in_flits_[input] + flits(p) <= in_buffer_; }
  // Queues p at `input` for `output` (the caller routes); requires can_inject.
  void inject(uint32_t input, uint32_t output, const MemPacket& p, uint64_t now);

  // One interconnect clock: arbitration, then one flit per connected pair.
  void cycle(uint64_t now);

  // Receiver side: the oldest packet at `output` that has arrived by `now`.
  bool has_output(uint32_t output, uint64_t now) const { return front_ready_[output] <= now; }
  const MemPacket& output_front(uint32_t output) const {
    if (out_fifo_[output].head == kNone) [[unlikely]]
      throw std::logic_error("crossbar: output_front of an empty output");
    return slots_[out_fifo_[output].head].packet;
  }
  void pop_output(uint32_t output);  // frees the packet's output-buffer flits

  // Calls visit(output) for every output holding a packet (arrived or not), in output order.
  template <typename Visit>
  void for_each_occupied_output(Visit&& visit) const {
    for_each_set_bit(occupied_outputs_, 0, out_words_, visit);
  }

  // Nothing buffered at any input or output.
  bool idle() const { return buffered_packets_ == 0 && delivered_waiting_ == 0; }
  // Flits buffered at an input / held (arrived or reserved) at an output.
  uint32_t input_flits(uint32_t input) const { return in_flits_[input]; }
  uint32_t output_flits(uint32_t output) const { return out_flits_[output]; }

  const CrossbarStats& stats(uint32_t slot) const { return stats_[slot]; }
  CrossbarStats take_stats(uint32_t slot);

 private:
  // Layout, for speed. cycle() runs between the SMs' cycles, which evict its
  // data from the caches, so much of its cost is the cache lines it touches:
  // - arbitration and stall counting work on bit sets and small per-port
  //   arrays, and look at a buffered packet only when those cannot decide
  //   (see latest_injection_, largest_flits_, stall_slot_, buffered_slots_);
  // - a packet stays in one slot from injection until it is popped at its
  //   output, linked into one FIFO after the other, and slots are reused most
  //   recently freed first, so the few in use stay cached.
  static constexpr uint32_t kNone = ~0u;
  static constexpr uint32_t kUnknownSlot = ~0u;  // stall_slot_: not looked up since it last changed
  static constexpr size_t kPacketTypes = size_t(MemPacketType::kAtomicReply) + 1;  // the last type

  // A buffered packet in its slot, linked into the FIFO of its (input, output)
  // pair until its last flit crosses, then into its output's.
  struct Buffered {
    MemPacket packet;
    uint64_t time = 0;      // injected at (at an input) / visible from (at an output)
    uint32_t next = kNone;  // next slot of the same FIFO
  };
  // Oldest and newest slot; an input's FIFO is empty when its pending_ bit is
  // clear, an output's when head is kNone.
  struct Fifo {
    uint32_t head = kNone, tail = kNone;
  };

  Fifo& fifo(uint32_t input, uint32_t output) { return voq_[size_t(input) * outputs_ + output]; }
  // The oldest packet `input` holds for `output` (it holds one).
  const Buffered& head(uint32_t input, uint32_t output) const {
    return slots_[voq_[size_t(input) * outputs_ + output].head];
  }
  uint32_t next_input(uint32_t input) const { return input + 1 == inputs_ ? 0 : input + 1; }
  uint32_t next_output(uint32_t output) const { return output + 1 == outputs_ ? 0 : output + 1; }

  // Bit sets of 64-bit words, `base` the first word of the set: requests_ (per
  // output, over inputs), pending_ (per input, over outputs), and
  // single sets over all inputs or outputs (base 0).
  static void set(std::vector<uint64_t>& bits, size_t base, uint32_t i) { bits[base + i / 64] |= uint64_t(1) << (i % 64); }
  static void clear(std::vector<uint64_t>& bits, size_t base, uint32_t i) {
    bits[base + i / 64] &= ~(uint64_t(1) << (i % 64));
  }
  static bool none(const std::vector<uint64_t>& bits, size_t base, uint32_t words) {
    for (uint32_t w = 0; w < words; ++w)
      if (bits[base + w] != 0) return false;
    return true;
  }
  void file(uint32_t input, uint32_t output, const MemPacket& p, uint64_t now);
  void arbitrate(uint64_t now);
  uint32_t first_requester(uint32_t output, uint64_t now) const;
  uint32_t first_injected_requester(uint32_t output, uint32_t first, uint64_t now) const;
  bool head_fits(uint32_t output, uint32_t input) const;
  void grant(uint32_t output, uint32_t input);
  void accept(uint32_t input, uint64_t now);
  void count_stalls();
  uint32_t stall_slot(uint32_t input);
  void transfer(uint64_t now);
  void deliver(uint32_t input, uint32_t output, uint64_t now);
  void arrive(uint32_t output, uint32_t s, uint64_t ready);

  static uint32_t stat_index(const MemPacket& p) { return p.stat_slot < kStatSlots ? p.stat_slot : 0; }

  uint32_t inputs_, outputs_;
  uint32_t latency_, in_buffer_, out_buffer_;
  bool replies_;
  std::array<uint8_t, kPacketTypes> type_flits_;  // flits of a packet of each type (at most 40: 40 B packets)
  uint32_t largest_flits_;         // flits of the largest packet: an output with this much room fits any
  uint32_t in_words_, out_words_;  // 64-bit words of a bit set over inputs / outputs

  // Slots of the packets at the inputs and at the outputs: inputs x in_buffer
  // plus outputs x out_buffer (every packet is >= 1 flit).
  // Both start as untouched zero pages (ZeroedArray): a run touches the
  // slots its traffic needs at once, not every buffer's capacity.
  ZeroedArray<Buffered> slots_;
  // Freed slots, a stack: the most recently freed is reused first, and
  // finding it reads no slot (so injections do not wait on each other's
  // cache misses); with none freed, the lowest slot never used yet.
  ZeroedArray<uint32_t> free_slots_;
  size_t free_top_ = 0;      // free_slots_[0, free_top_) are free
  uint32_t fresh_slot_ = 0;  // slots [fresh_slot_, size) were never used

  // Inputs.
  std::vector<Fifo> voq_;             // inputs x outputs
  std::vector<uint32_t> in_flits_;    // flits buffered per input
  std::vector<uint64_t> pending_;     // per input: outputs it holds a packet for
  std::vector<uint64_t> requests_;    // per output: inputs holding a packet for it
  std::vector<uint64_t> requested_outputs_;  // outputs with any request (arbitration visits only these)
  std::vector<uint64_t> holding_inputs_;     // inputs holding packets (in_flits_ > 0)
  std::vector<uint64_t> connected_inputs_;   // inputs carrying a multi-flit packet (transfer visits only these)
  std::vector<uint32_t> accept_ptr_;  // per input (iSLIP accept pointer)
  std::vector<uint32_t> in_conn_;     // per connected input: its output
  std::vector<uint32_t> in_left_;     // per connected input: flits of its packet still to cross
  // Per input: statistics slot of the head packet its accept pointer favours,
  // or kUnknownSlot. It changes only when the input gets a packet for a new
  // output or when it is granted (its pointer moves, and its head leaves
  // before it can stall again); both reset it.
  std::vector<uint32_t> stall_slot_;

  // Outputs.
  std::vector<uint32_t> grant_ptr_;  // per output (iSLIP grant pointer)
  std::vector<uint64_t> connected_outputs_;  // outputs receiving a multi-flit packet
  std::vector<uint32_t> out_flits_;  // flits held or reserved per output
  std::vector<Fifo> out_fifo_;       // per output: its packets, oldest first
  std::vector<uint64_t> front_ready_;       // per output: ready time of its oldest packet, UINT64_MAX when empty
  std::vector<uint64_t> occupied_outputs_;  // outputs holding packets

  // Arbitration (sized once): inputs granted this cycle, and per granted input the output it accepts.
  std::vector<uint64_t> granted_inputs_;
  std::vector<uint32_t> accepted_output_;

  // The latest injection time of any packet: from then on every buffered packet
  // may cross (the usual case, as callers inject at the current cycle); before,
  // each FIFO head's own time decides.
  uint64_t latest_injection_ = 0;
  uint64_t buffered_packets_ = 0;   // at inputs
  std::array<uint64_t, kStatSlots> buffered_per_slot_{};  // of them, per statistics slot
  uint32_t buffered_slots_ = 0;     // statistics slots with packets at the inputs
  uint64_t delivered_waiting_ = 0;  // in output buffers
  std::array<CrossbarStats, kStatSlots> stats_{};
};

}  // namespace lockstep
