#include "memsys/crossbar.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace lockstep {

namespace {
// The largest packet on the wire: a header plus one sector (writes, data replies).
constexpr uint32_t kLargestPacketBytes = kPacketHeaderBytes + kPacketSectorBytes;
constexpr uint32_t kNoBit = ~0u;

// The first set bit at or after bit `from` of a bit set given as word(w) for
// w < words, wrapping around; kNoBit when none is set.
template <typename Word>
uint32_t first_from(Word&& word, uint32_t words, uint32_t from) {
  const uint32_t start = from / 64;
  if (const uint64_t bits = word(start) & (~uint64_t(0) << (from % 64)))
    return start * 64 + uint32_t(std::countr_zero(bits));
  for (uint32_t k = 1; k <= words; ++k) {  // the following words, back to `start` (its bits below `from`)
    const uint32_t w = start + k < words ? start + k : start + k - words;
    if (const uint64_t bits = word(w)) return w * 64 + uint32_t(std::countr_zero(bits));
  }
  return kNoBit;
}

[[noreturn, gnu::noinline]] void throw_bad_port(uint32_t input, uint32_t output, uint32_t inputs, uint32_t outputs) {
  throw std::out_of_range("crossbar: port " + std::to_string(input) + " -> " + std::to_string(output) + " outside " +
                          std::to_string(inputs) + " x " + std::to_string(outputs));
}
}  // namespace

Crossbar::Crossbar(uint32_t inputs, uint32_t outputs, const IcntSpec& spec, bool replies)
    : inputs_(inputs),
      outputs_(outputs),
      latency_(spec.latency),
      in_buffer_(spec.in_buffer),
      out_buffer_(spec.out_buffer),
      replies_(replies) {
  if (inputs == 0 || outputs == 0) throw std::invalid_argument("crossbar: needs at least one input and one output");
  if (spec.flit_bytes == 0) throw std::invalid_argument("icnt.flit_bytes = 0: must be >= 1");
  const auto flits_of = [&](uint32_t bytes) { return (bytes + spec.flit_bytes - 1) / spec.flit_bytes; };
  for (size_t t = 0; t < kPacketTypes; ++t) {
    MemPacket p;
    p.type = MemPacketType(t);
    type_flits_[t] = uint8_t(flits_of(p.bytes()));
  }
  largest_flits_ = flits_of(kLargestPacketBytes);
  if (in_buffer_ < largest_flits_ || out_buffer_ < largest_flits_)
    throw std::invalid_argument("crossbar: icnt.in_buffer and icnt.out_buffer must hold a whole " +
                                std::to_string(largest_flits_) + "-flit packet");
  in_words_ = (inputs_ + 63) / 64;
  out_words_ = (outputs_ + 63) / 64;

  slots_ = ZeroedArray<Buffered>(size_t(inputs_) * in_buffer_ + size_t(outputs_) * out_buffer_);
  free_slots_ = ZeroedArray<uint32_t>(slots_.size());
  voq_.resize(size_t(inputs_) * outputs_);
  in_flits_.assign(inputs_, 0);
  pending_.assign(size_t(inputs_) * out_words_, 0);
  requests_.assign(size_t(outputs_) * in_words_, 0);
  requested_outputs_.assign(out_words_, 0);
  holding_inputs_.assign(in_words_, 0);
  connected_inputs_.assign(in_words_, 0);
  accept_ptr_.assign(inputs_, 0);
  in_conn_.assign(inputs_, kNone);
  in_left_.assign(inputs_, 0);
  stall_slot_.assign(inputs_, kUnknownSlot);

  grant_ptr_.assign(outputs_, 0);
  connected_outputs_.assign(out_words_, 0);
  out_flits_.assign(outputs_, 0);
  out_fifo_.resize(outputs_);
  front_ready_.assign(outputs_, UINT64_MAX);
  occupied_outputs_.assign(out_words_, 0);

  granted_inputs_.assign(in_words_, 0);
  accepted_output_.assign(inputs_, 0);
}

void Crossbar::inject(uint32_t input, uint32_t output, const MemPacket& p, uint64_t now) {
  if (input >= inputs_ || output >= outputs_) [[unlikely]]
    throw_bad_port(input, output, inputs_, outputs_);
  if (!can_inject(input, p)) [[unlikely]]
    throw std::logic_error("crossbar: inject into a full input buffer");
  set(holding_inputs_, 0, input);
  in_flits_[input] += flits(p);
  latest_injection_ = std::max(latest_injection_, now);
  ++buffered_packets_;
  if (buffered_per_slot_[stat_index(p)]++ == 0) ++buffered_slots_;
  file(input, output, p, now);
}

void Crossbar::cycle(uint64_t now) {
  if (buffered_packets_ == 0) return;
  arbitrate(now);
  count_stalls();
  transfer(now);
  for (uint64_t& word : granted_inputs_) word = 0;
}

// Appends packet p, injected at `now`, to FIFO (input, output).
void Crossbar::file(uint32_t input, uint32_t output, const MemPacket& p, uint64_t now) {
  const uint32_t s = free_top_ > 0 ? free_slots_[--free_top_] : fresh_slot_++;
  slots_[s] = Buffered{p, now, kNone};
  Fifo& f = fifo(input, output);
  const size_t pending = size_t(input) * out_words_;
  if (pending_[pending + output / 64] >> (output % 64) & 1) {
    slots_[f.tail].next = s;
  } else {  // an empty FIFO (told by pending_, so the FIFO is written, not read)
    f.head = s;
    set(pending_, pending, output);
    set(requests_, size_t(output) * in_words_, input);
    set(requested_outputs_, 0, output);
    stall_slot_[input] = kUnknownSlot;  // the new output may be the favoured one
  }
  f.tail = s;
}

// One iSLIP iteration over the free outputs and the unconnected inputs.
void Crossbar::arbitrate(uint64_t now) {
  // Grant: every free output picks the first eligible requester from its pointer
  // on (outputs nobody requests have nothing to grant); a full output grants nothing.
  for (uint32_t ow = 0; ow < out_words_; ++ow)
    for (uint64_t word = requested_outputs_[ow] & ~connected_outputs_[ow]; word; word &= word - 1) {
      const uint32_t o = ow * 64 + uint32_t(std::countr_zero(word));
      const uint32_t i = first_requester(o, now);
      if (i != kNoBit && head_fits(o, i)) grant(o, i);
    }
  // Accept: every granted input takes the first grant from its pointer on; pointers
  // advance only here, so an unaccepted grant leaves its output's pointer in place.
  // (granted_inputs_ stays set until the end of the cycle: those inputs send a flit.)
  for_each_set_bit(granted_inputs_, 0, in_words_, [&](uint32_t i) { accept(i, now); });
}

// The first input from `output`'s grant pointer on that is not connected and
// holds a packet for it that may cross at `now`; kNoBit when there is none.
inline uint32_t Crossbar::first_requester(uint32_t output, uint64_t now) const {
  const size_t base = size_t(output) * in_words_;
  const uint32_t first = first_from([&](uint32_t w) { return requests_[base + w] & ~connected_inputs_[w]; },
                                    in_words_, grant_ptr_[output]);
  return first == kNoBit || latest_injection_ <= now ? first : first_injected_requester(output, first, now);
}

// first_requester() while some packet waits for its injection time: from `first`
// on, skips the requesters whose head packet does.
uint32_t Crossbar::first_injected_requester(uint32_t output, uint32_t first, uint64_t now) const {
  const size_t base = size_t(output) * in_words_;
  for (uint32_t i = first;;) {
    if (head(i, output).time <= now) return i;
    i = first_from([&](uint32_t w) { return requests_[base + w] & ~connected_inputs_[w]; }, in_words_, next_input(i));
    if (i == first) return kNoBit;
  }
}

// `output`'s buffer can take every flit of `input`'s head packet for it.
inline bool Crossbar::head_fits(uint32_t output, uint32_t input) const {
  return out_flits_[output] + largest_flits_ <= out_buffer_ ||
         out_flits_[output] + flits(head(input, output).packet) <= out_buffer_;
}

// `output` grants `input`. Outputs grant in increasing order, so the grant the
// input will accept (the first at or after its accept pointer, else its first)
// is known as they come.
inline void Crossbar::grant(uint32_t output, uint32_t input) {
  uint32_t& choice = accepted_output_[input];
  const uint32_t from = accept_ptr_[input];
  if (!(granted_inputs_[input / 64] >> (input % 64) & 1)) {
    set(granted_inputs_, 0, input);
    choice = output;
  } else if (choice < from && output >= from) {
    choice = output;
  }
}

// A granted input takes the output it accepts; its other grants are lost. A
// single-flit packet crosses at once, a longer one connects the pair.
void Crossbar::accept(uint32_t input, uint64_t now) {
  const uint32_t o = accepted_output_[input];
  const uint32_t packet_flits = flits(head(input, o).packet);
  out_flits_[o] += packet_flits;  // reserved: the packet never stops mid-way
  grant_ptr_[o] = next_input(input);
  accept_ptr_[input] = next_output(o);
  stall_slot_[input] = kUnknownSlot;
  if (packet_flits == 1) {
    --in_flits_[input];
    deliver(input, o, now);
    return;
  }
  in_conn_[input] = o;
  in_left_[input] = packet_flits;
  set(connected_inputs_, 0, input);
  set(connected_outputs_, 0, o);
}

// Inputs that hold packets but neither are connected nor were granted send nothing this cycle.
void Crossbar::count_stalls() {
  const auto stalled = [&](uint32_t w) { return holding_inputs_[w] & ~connected_inputs_[w] & ~granted_inputs_[w]; };
  if (buffered_slots_ == 1) {  // every packet at the inputs counts into one slot (one kernel's): count at once
    uint64_t inputs = 0;
    for (uint32_t w = 0; w < in_words_; ++w) inputs += uint64_t(std::popcount(stalled(w)));
    const auto& per_slot = buffered_per_slot_;
    const auto slot = std::find_if(per_slot.begin(), per_slot.end(), [](uint64_t n) { return n != 0; });
    stats_[size_t(slot - per_slot.begin())].stall_cycles += inputs;
    return;
  }
  for (uint32_t w = 0; w < in_words_; ++w)
    for (uint64_t word = stalled(w); word; word &= word - 1)
      ++stats_[stall_slot(w * 64 + uint32_t(std::countr_zero(word)))].stall_cycles;
}

// Statistics slot of the head packet `input`'s accept pointer favours: its first
// pending output at or after the pointer.
uint32_t Crossbar::stall_slot(uint32_t input) {
  uint32_t& slot = stall_slot_[input];
  if (slot == kUnknownSlot) {
    const size_t base = size_t(input) * out_words_;
    const uint32_t o = first_from([&](uint32_t w) { return pending_[base + w]; }, out_words_, accept_ptr_[input]);
    slot = stat_index(head(input, o).packet);
  }
  return slot;
}

// One flit per connected pair (single-flit packets crossed at their accept); a
// packet whose last flit crosses moves to the output buffer.
void Crossbar::transfer(uint64_t now) {
  for (uint32_t w = 0; w < in_words_; ++w) {
    for (uint64_t word = connected_inputs_[w]; word; word &= word - 1) {
      const uint32_t i = w * 64 + uint32_t(std::countr_zero(word));
      --in_flits_[i];
      if (--in_left_[i] > 0) continue;
      clear(connected_inputs_, 0, i);
      clear(connected_outputs_, 0, in_conn_[i]);
      deliver(i, in_conn_[i], now);
    }
  }
}

// The last flit of `input`'s packet for `output` crossed: the packet moves, in
// its slot, from its input FIFO to the output's.
void Crossbar::deliver(uint32_t input, uint32_t output, uint64_t now) {
  Fifo& f = fifo(input, output);
  const uint32_t s = f.head;
  Buffered& b = slots_[s];
  f.head = b.next;
  if (f.head == kNone) {
    clear(pending_, size_t(input) * out_words_, output);
    clear(requests_, size_t(output) * in_words_, input);
    if (none(requests_, size_t(output) * in_words_, in_words_)) clear(requested_outputs_, 0, output);
  }
  if (in_flits_[input] == 0) clear(holding_inputs_, 0, input);
  --buffered_packets_;
  if (--buffered_per_slot_[stat_index(b.packet)] == 0) --buffered_slots_;
  arrive(output, s, now + latency_);
}

// Appends the packet in slot s, whose last flit crossed, to `output`'s buffer
// and counts it as delivered.
void Crossbar::arrive(uint32_t output, uint32_t s, uint64_t ready) {
  Buffered& b = slots_[s];
  b.time = ready;
  b.next = kNone;
  Fifo& f = out_fifo_[output];
  if (f.head == kNone) {
    f.head = s;
    front_ready_[output] = ready;
    set(occupied_outputs_, 0, output);
  } else {
    slots_[f.tail].next = s;
  }
  f.tail = s;
  ++delivered_waiting_;
  CrossbarStats& st = stats_[stat_index(b.packet)];
  if (replies_) {
    ++st.reply_packets;
    st.reply_flits += flits(b.packet);
  } else {
    ++st.request_packets;
    st.request_flits += flits(b.packet);
  }
}

void Crossbar::pop_output(uint32_t output) {
  Fifo& f = out_fifo_[output];
  if (f.head == kNone) [[unlikely]]
    throw std::logic_error("crossbar: pop_output of an empty output");
  const uint32_t s = f.head;
  Buffered& b = slots_[s];
  out_flits_[output] -= flits(b.packet);
  f.head = b.next;
  free_slots_[free_top_++] = s;
  --delivered_waiting_;
  if (f.head == kNone) {
    front_ready_[output] = UINT64_MAX;
    clear(occupied_outputs_, 0, output);
  } else {
    front_ready_[output] = slots_[f.head].time;
  }
}

CrossbarStats Crossbar::take_stats(uint32_t slot) {
  const CrossbarStats s = stats_[slot];
  stats_[slot] = CrossbarStats{};
  return s;
}

}  // namespace lockstep
