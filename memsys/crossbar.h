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
//   (counted when the last flit crosses; icnt_request_* or icnt_reply_*), and
//   icnt_stall_cycles: cycles an input held packets but sent no flit (counted
//   in the slot of the head packet its accept pointer favours).
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "memsys/mem_packet.h"
#include "memsys/memory_spec.h"
#include "memsys/memory_stats.h"

namespace lockstep {

class Crossbar {
 public:
  // `replies`: the L2 -> SM subnet (counts icnt_reply_*), else SM -> L2 (icnt_request_*).
  // Throws std::invalid_argument for zero ports or buffers smaller than the largest packet.
  Crossbar(uint32_t inputs, uint32_t outputs, const IcntSpec& spec, bool replies = false);

  uint32_t inputs() const { return inputs_; }
  uint32_t outputs() const { return outputs_; }
  // Flits packet p occupies on the wire and in the buffers.
  uint32_t flits(const MemPacket& p) const { return (p.bytes() + flit_bytes_ - 1) / flit_bytes_; }

  // Sender side: the input buffer has room for every flit of p.
  bool can_inject(uint32_t input, const MemPacket& p) const;
  // Queues p at `input` for `output` (the caller routes); requires can_inject.
  void inject(uint32_t input, uint32_t output, const MemPacket& p, uint64_t now);

  // One interconnect clock: arbitration, then one flit per connected pair.
  void cycle(uint64_t now);

  // Receiver side: the oldest packet at `output` that has arrived by `now`.
  bool has_output(uint32_t output, uint64_t now) const;
  const MemPacket& output_front(uint32_t output) const;
  void pop_output(uint32_t output);  // frees the packet's output-buffer flits

  // Calls visit(output) for every output holding a packet (arrived or not), in output order.
  template <typename Visit>
  void for_each_occupied_output(Visit&& visit) const {
    for (uint32_t w = 0; w < out_words_; ++w)
      for (uint64_t word = occupied_outputs_[w]; word; word &= word - 1) visit(w * 64 + uint32_t(std::countr_zero(word)));
  }

  // Nothing buffered at any input or output.
  bool idle() const { return buffered_packets_ == 0 && delivered_waiting_ == 0; }
  // Flits buffered at an input / held (arrived or reserved) at an output.
  uint32_t input_flits(uint32_t input) const { return in_flits_[input]; }
  uint32_t output_flits(uint32_t output) const { return out_flits_[output]; }

  const MemoryStats& stats(uint32_t slot) const { return stats_[slot]; }
  MemoryStats take_stats(uint32_t slot);

 private:
  static constexpr uint32_t kNone = ~0u;

  // A packet waiting at an input, linked into its (input, output) FIFO.
  struct Waiting {
    MemPacket packet;
    uint64_t injected = 0;
    uint32_t next = kNone;  // next slot of the same FIFO
    uint32_t flits = 0;
  };
  // A packet in an output buffer.
  struct Arrived {
    MemPacket packet;
    uint64_t ready = 0;
    uint32_t flits = 0;
  };
  struct Fifo {
    uint32_t head = kNone, tail = kNone;
  };

  // Slot storage: input i owns slots [i * in_slots_, (i + 1) * in_slots_).
  uint32_t alloc_slot(uint32_t input);
  Fifo& fifo(uint32_t input, uint32_t output) { return voq_[size_t(input) * outputs_ + output]; }
  // Bit sets: requests_ (per output, over inputs), pending_ (per input, over outputs).
  static void set(std::vector<uint64_t>& bits, size_t base, uint32_t i) { bits[base + i / 64] |= uint64_t(1) << (i % 64); }
  static void clear(std::vector<uint64_t>& bits, size_t base, uint32_t i) {
    bits[base + i / 64] &= ~(uint64_t(1) << (i % 64));
  }
  // First set bit at or after `from`, wrapping around; kNone when none is set.
  static uint32_t next_set(const std::vector<uint64_t>& bits, size_t base, uint32_t words, uint32_t n, uint32_t from);

  void arbitrate(uint64_t now);
  void transfer(uint64_t now);
  void count_stalls();
  MemoryStats& slot_stats(const MemPacket& p) { return stats_[p.stat_slot < kStatSlots ? p.stat_slot : 0]; }

  uint32_t inputs_, outputs_;
  uint32_t flit_bytes_, latency_, in_buffer_, out_buffer_;
  bool replies_;
  uint32_t in_words_, out_words_;  // 64-bit words of a bit set over inputs / outputs
  uint32_t in_slots_;              // packets an input can hold (in_buffer: every packet is >= 1 flit)

  // Inputs.
  std::vector<Waiting> slots_;
  std::vector<uint32_t> free_slots_;  // per input: a stack of free slot indices, in_slots_ each
  std::vector<uint32_t> free_top_;    // per input: free slots left
  std::vector<Fifo> voq_;             // inputs x outputs
  std::vector<uint32_t> in_flits_;    // flits buffered per input
  std::vector<uint32_t> in_packets_;  // packets buffered per input
  std::vector<uint64_t> pending_;     // per input: outputs it holds a packet for
  std::vector<uint64_t> requests_;    // per output: inputs holding a packet for it
  std::vector<uint64_t> requested_outputs_;  // outputs with any request (arbitration visits only these)
  std::vector<uint32_t> accept_ptr_;  // per input (iSLIP accept pointer)
  std::vector<uint32_t> in_conn_;     // per input: connected output, or kNone
  std::vector<uint32_t> in_left_;     // per input: flits of the connected packet still to cross
  std::vector<uint32_t> active_;      // inputs holding packets (the only ones cycle() visits)

  // Outputs.
  std::vector<uint32_t> grant_ptr_;  // per output (iSLIP grant pointer)
  std::vector<uint32_t> out_conn_;   // per output: connected input, or kNone
  std::vector<uint32_t> out_flits_;  // flits held or reserved per output
  std::vector<Arrived> out_ring_;    // outputs x out_buffer (every packet is >= 1 flit)
  std::vector<uint32_t> out_head_, out_count_;
  std::vector<uint64_t> occupied_outputs_;  // outputs with out_count_ > 0

  // Arbitration scratch (sized once): per input, outputs that granted it.
  std::vector<uint64_t> grants_;
  std::vector<uint32_t> granted_inputs_;

  uint64_t buffered_packets_ = 0;   // at inputs
  uint64_t delivered_waiting_ = 0;  // in output buffers
  std::array<MemoryStats, kStatSlots> stats_{};
};

}  // namespace lockstep
