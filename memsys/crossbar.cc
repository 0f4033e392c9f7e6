#include "memsys/crossbar.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace lockstep {

namespace {
// The largest packet on the wire: a header plus one sector (writes, data replies).
constexpr uint32_t kLargestPacketBytes = kPacketHeaderBytes + kPacketSectorBytes;

// Visits the set bits of a bit set of n bits starting at `from` and wrapping
// around, in that circular order, until visit(i) returns true.
template <typename Visit>
void visit_from(const std::vector<uint64_t>& bits, size_t base, uint32_t words, uint32_t n, uint32_t from,
                Visit&& visit) {
  const auto scan = [&](uint32_t lo, uint32_t hi) {  // [lo, hi)
    for (uint32_t w = lo / 64; w < words && w * 64 < hi; ++w) {
      uint64_t word = bits[base + w];
      if (w == lo / 64) word &= ~uint64_t(0) << (lo % 64);
      while (word) {
        const uint32_t i = w * 64 + uint32_t(std::countr_zero(word));
        if (i >= hi) return false;
        if (visit(i)) return true;
        word &= word - 1;
      }
    }
    return false;
  };
  if (!scan(from, n)) scan(0, from);
}
}  // namespace

Crossbar::Crossbar(uint32_t inputs, uint32_t outputs, const IcntSpec& spec, bool replies)
    : inputs_(inputs),
      outputs_(outputs),
      flit_bytes_(spec.flit_bytes),
      latency_(spec.latency),
      in_buffer_(spec.in_buffer),
      out_buffer_(spec.out_buffer),
      replies_(replies) {
  if (inputs == 0 || outputs == 0) throw std::invalid_argument("crossbar: needs at least one input and one output");
  if (flit_bytes_ == 0) throw std::invalid_argument("icnt.flit_bytes = 0: must be >= 1");
  const uint32_t largest = (kLargestPacketBytes + flit_bytes_ - 1) / flit_bytes_;
  if (in_buffer_ < largest || out_buffer_ < largest)
    throw std::invalid_argument("crossbar: icnt.in_buffer and icnt.out_buffer must hold a whole " +
                                std::to_string(largest) + "-flit packet");
  in_words_ = (inputs_ + 63) / 64;
  out_words_ = (outputs_ + 63) / 64;
  in_slots_ = in_buffer_;

  slots_.resize(size_t(inputs_) * in_slots_);
  free_slots_.resize(size_t(inputs_) * in_slots_);
  free_top_.assign(inputs_, in_slots_);
  for (uint32_t i = 0; i < inputs_; ++i)
    for (uint32_t k = 0; k < in_slots_; ++k)  // popped from the back: lowest slot first
      free_slots_[size_t(i) * in_slots_ + k] = i * in_slots_ + (in_slots_ - 1 - k);
  voq_.resize(size_t(inputs_) * outputs_);
  in_flits_.assign(inputs_, 0);
  in_packets_.assign(inputs_, 0);
  pending_.assign(size_t(inputs_) * out_words_, 0);
  requests_.assign(size_t(outputs_) * in_words_, 0);
  requested_outputs_.assign(out_words_, 0);
  accept_ptr_.assign(inputs_, 0);
  in_conn_.assign(inputs_, kNone);
  in_left_.assign(inputs_, 0);
  active_.reserve(inputs_);

  grant_ptr_.assign(outputs_, 0);
  out_conn_.assign(outputs_, kNone);
  out_flits_.assign(outputs_, 0);
  out_ring_.resize(size_t(outputs_) * out_buffer_);
  out_head_.assign(outputs_, 0);
  out_count_.assign(outputs_, 0);
  occupied_outputs_.assign(out_words_, 0);

  grants_.assign(size_t(inputs_) * out_words_, 0);
  granted_inputs_.reserve(inputs_);
}

uint32_t Crossbar::next_set(const std::vector<uint64_t>& bits, size_t base, uint32_t words, uint32_t n,
                            uint32_t from) {
  uint32_t found = kNone;
  visit_from(bits, base, words, n, from, [&](uint32_t i) {
    found = i;
    return true;
  });
  return found;
}

bool Crossbar::can_inject(uint32_t input, const MemPacket& p) const {
  return in_flits_[input] + flits(p) <= in_buffer_;
}

uint32_t Crossbar::alloc_slot(uint32_t input) { return free_slots_[size_t(input) * in_slots_ + --free_top_[input]]; }

void Crossbar::inject(uint32_t input, uint32_t output, const MemPacket& p, uint64_t now) {
  if (input >= inputs_ || output >= outputs_)
    throw std::out_of_range("crossbar: port " + std::to_string(input) + " -> " + std::to_string(output) +
                            " outside " + std::to_string(inputs_) + " x " + std::to_string(outputs_));
  if (!can_inject(input, p)) throw std::logic_error("crossbar: inject into a full input buffer");
  const uint32_t s = alloc_slot(input);
  Waiting& w = slots_[s];
  w.packet = p;
  w.injected = now;
  w.next = kNone;
  w.flits = flits(p);
  Fifo& f = fifo(input, output);
  if (f.tail == kNone) {
    f.head = s;
    set(pending_, size_t(input) * out_words_, output);
    set(requests_, size_t(output) * in_words_, input);
    set(requested_outputs_, 0, output);
  } else {
    slots_[f.tail].next = s;
  }
  f.tail = s;
  in_flits_[input] += w.flits;
  if (in_packets_[input]++ == 0) active_.push_back(input);
  ++buffered_packets_;
}

void Crossbar::cycle(uint64_t now) {
  if (active_.empty()) return;
  arbitrate(now);
  count_stalls();
  transfer(now);
}

// One iSLIP iteration over the free outputs and the unconnected inputs.
void Crossbar::arbitrate(uint64_t now) {
  granted_inputs_.clear();
  // Grant: every free output picks the first eligible requester from its pointer
  // on (outputs nobody requests have nothing to grant).
  for (uint32_t ow = 0; ow < out_words_; ++ow)
    for (uint64_t word = requested_outputs_[ow]; word; word &= word - 1) {
    const uint32_t o = ow * 64 + uint32_t(std::countr_zero(word));
    if (out_conn_[o] != kNone) continue;
    visit_from(requests_, size_t(o) * in_words_, in_words_, inputs_, grant_ptr_[o], [&](uint32_t i) {
      if (in_conn_[i] != kNone) return false;  // busy with another packet: not requesting
      const Waiting& head = slots_[fifo(i, o).head];
      if (head.injected > now) return false;
      // The output grants only a packet it can buffer whole; a full output grants nothing.
      if (out_flits_[o] + head.flits <= out_buffer_) {
        const size_t base = size_t(i) * out_words_;
        bool first = true;
        for (uint32_t w = 0; w < out_words_; ++w) first = first && grants_[base + w] == 0;
        if (first) granted_inputs_.push_back(i);
        set(grants_, base, o);
      }
      return true;
    });
    }
  // Accept: every granted input takes the first grant from its pointer on; pointers
  // advance only here, so an unaccepted grant leaves its output's pointer in place.
  for (uint32_t i : granted_inputs_) {
    const size_t base = size_t(i) * out_words_;
    const uint32_t o = next_set(grants_, base, out_words_, outputs_, accept_ptr_[i]);
    std::fill_n(grants_.begin() + std::ptrdiff_t(base), out_words_, 0);
    const Waiting& head = slots_[fifo(i, o).head];
    in_conn_[i] = o;
    out_conn_[o] = i;
    in_left_[i] = head.flits;
    out_flits_[o] += head.flits;  // reserved: the packet never stops mid-way
    grant_ptr_[o] = (i + 1) % inputs_;
    accept_ptr_[i] = (o + 1) % outputs_;
  }
}

// Inputs that hold packets but are not connected send nothing this cycle.
void Crossbar::count_stalls() {
  for (uint32_t i : active_) {
    if (in_conn_[i] != kNone) continue;
    const uint32_t o = next_set(pending_, size_t(i) * out_words_, out_words_, outputs_, accept_ptr_[i]);
    ++slot_stats(slots_[fifo(i, o).head].packet).icnt_stall_cycles;
  }
}

// One flit per connected pair; a packet whose last flit crosses moves to the output buffer.
void Crossbar::transfer(uint64_t now) {
  size_t keep = 0;
  for (size_t k = 0; k < active_.size(); ++k) {
    const uint32_t i = active_[k];
    const uint32_t o = in_conn_[i];
    if (o != kNone) {
      --in_flits_[i];
      if (--in_left_[i] == 0) {
        Fifo& f = fifo(i, o);
        const uint32_t s = f.head;
        const Waiting& w = slots_[s];
        const uint32_t at = (out_head_[o] + out_count_[o]++) % out_buffer_;
        set(occupied_outputs_, 0, o);
        out_ring_[size_t(o) * out_buffer_ + at] = Arrived{w.packet, now + latency_, w.flits};
        MemoryStats& st = slot_stats(w.packet);
        if (replies_) {
          ++st.icnt_reply_packets;
          st.icnt_reply_flits += w.flits;
        } else {
          ++st.icnt_request_packets;
          st.icnt_request_flits += w.flits;
        }
        f.head = w.next;
        if (f.head == kNone) {
          f.tail = kNone;
          clear(pending_, size_t(i) * out_words_, o);
          clear(requests_, size_t(o) * in_words_, i);
          bool any = false;
          for (uint32_t w = 0; w < in_words_; ++w) any = any || requests_[size_t(o) * in_words_ + w] != 0;
          if (!any) clear(requested_outputs_, 0, o);
        }
        free_slots_[size_t(i) * in_slots_ + free_top_[i]++] = s;
        --in_packets_[i];
        --buffered_packets_;
        ++delivered_waiting_;
        in_conn_[i] = kNone;
        out_conn_[o] = kNone;
      }
    }
    if (in_packets_[i] > 0) active_[keep++] = i;
  }
  active_.resize(keep);
}

bool Crossbar::has_output(uint32_t output, uint64_t now) const {
  return out_count_[output] > 0 && out_ring_[size_t(output) * out_buffer_ + out_head_[output]].ready <= now;
}

const MemPacket& Crossbar::output_front(uint32_t output) const {
  if (out_count_[output] == 0) throw std::logic_error("crossbar: output_front of an empty output");
  return out_ring_[size_t(output) * out_buffer_ + out_head_[output]].packet;
}

void Crossbar::pop_output(uint32_t output) {
  if (out_count_[output] == 0) throw std::logic_error("crossbar: pop_output of an empty output");
  out_flits_[output] -= out_ring_[size_t(output) * out_buffer_ + out_head_[output]].flits;
  out_head_[output] = (out_head_[output] + 1) % out_buffer_;
  if (--out_count_[output] == 0) clear(occupied_outputs_, 0, output);
  --delivered_waiting_;
}

MemoryStats Crossbar::take_stats(uint32_t slot) {
  const MemoryStats s = stats_[slot];
  stats_[slot] = MemoryStats{};
  return s;
}

}  // namespace lockstep
