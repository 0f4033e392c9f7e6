#include "memsys/memory_system.h"

#include <algorithm>
#include <bit>
#include <string>

#include "memsys/bit_set.h"
#include "memsys/copy_engine.h"

namespace lockstep {

namespace {
// Takes in every queue's staged packets; bit i of `holding` tells whether queue i then holds packets.
void receive_all(std::vector<LatchedQueue<MemPacket>>& queues, std::vector<uint64_t>& holding, StagedPorts& staged,
                 unsigned parity) {
  // The ports that may hold packets now: those that held some after the last
  // receive (a superset of those not emptied since) and those staged into in
  // the previous cycle.
  for (uint32_t w = 0; w < holding.size(); ++w) {
    uint64_t word = 0;
    for (uint64_t bits = holding[w] | staged.take(parity ^ 1, w); bits != 0; bits &= bits - 1) {
      const uint32_t i = w * 64 + uint32_t(std::countr_zero(bits));
      queues[i].receive();
      word |= uint64_t(!queues[i].empty()) << (i % 64);
    }
    holding[w] = word;
  }
}
// Publishes the pops of the queues that held packets in this cycle or the
// previous one (`holding`, `held_before`), then moves `holding` to `held_before`.
void publish_held(std::vector<LatchedQueue<MemPacket>>& queues, const std::vector<uint64_t>& holding,
                  std::vector<uint64_t>& held_before) {
  for (uint32_t w = 0; w < holding.size(); ++w) {
    for (uint64_t word = holding[w] | held_before[w]; word; word &= word - 1)
      queues[w * 64 + uint32_t(std::countr_zero(word))].publish_pops();
    held_before[w] = holding[w];
  }
}
}  // namespace

MemorySystem::MemorySystem(const MemorySpec& spec, uint32_t sms, uint32_t sms_per_cluster, const MemoryTiming& timing,
                           HeapSeparator* separator)
    : spec_(spec),
      subs_(spec.l2.subpartitions),
      sms_per_cluster_(std::max(sms_per_cluster, 1u)),
      timing_(timing),
      map_(spec) {
  const uint32_t clusters = (sms + sms_per_cluster_ - 1) / sms_per_cluster_;
  for (uint32_t sm = 0; sm < sms; ++sm) cluster_of_sm_.push_back(sm / sms_per_cluster_);
  to_memory_.reserve(sms);
  from_memory_.reserve(sms);
  for (uint32_t s = 0; s < sms; ++s) {
    to_memory_.emplace_back(spec.l1d.miss_queue, &port_clock_);
    from_memory_.emplace_back(spec.icnt.sm_ejection_buffer, &port_clock_);
    if (separator) separator->separate();
  }
  sms_staged_ = std::make_unique<StagedPorts>(sms);
  for (uint32_t s = 0; s < sms; ++s) to_memory_[s].report_stages_to(sms_staged_.get(), s);
  replies_staged_ = std::make_unique<StagedPorts>(sms);
  for (uint32_t s = 0; s < sms; ++s) from_memory_[s].report_stages_to(replies_staged_.get(), s);
  cluster_rr_.assign(clusters, 0);
  cluster_locators_.reserve(clusters);
  for (uint32_t c = 0; c < clusters; ++c) cluster_locators_.emplace_back(map_);
  requesting_sms_.assign((sms + 63) / 64, 0);
  requested_before_.assign(requesting_sms_.size(), 0);
  const uint32_t nslices = spec.l2_slices();
  // A slice's inbox and outbox hold what one side can pass in a core cycle,
  // twice: the consumer frees room only at the commit, so with fewer the
  // ports would halve the rate.
  const uint32_t inbox = 2 * std::max(1u, timing.l2_edges_per_core_cycle);
  const uint32_t outbox = 2 * std::max(1u, timing.icnt_edges_per_core_cycle);
  to_slice_.reserve(nslices);
  from_slice_.reserve(nslices);
  for (uint32_t s = 0; s < nslices; ++s) {
    to_slice_.emplace_back(inbox, &port_clock_);
    from_slice_.emplace_back(outbox, &port_clock_);
  }
  inbox_stride_ = std::bit_ceil(subs_);
  inbox_mask_ = (uint64_t(1) << subs_) - 1;  // (at most 16 ports)
  inbox_stages_ = std::make_unique<StagedPorts>(size_t(spec.dram.channels) * inbox_stride_);
  for (uint32_t s = 0; s < nslices; ++s) {
    const uint32_t p = s / spec.l2.subpartitions, sub = s % spec.l2.subpartitions;
    to_slice_[s].report_stages_to(inbox_stages_.get(), p * inbox_stride_ + sub);
  }
  slices_staged_ = std::make_unique<StagedPorts>(nslices);
  for (uint32_t s = 0; s < nslices; ++s) from_slice_[s].report_stages_to(slices_staged_.get(), s);
  replying_slices_.assign((nslices + 63) / 64, 0);
  replied_before_.assign(replying_slices_.size(), 0);
  request_net_ = std::make_unique<Crossbar>(clusters, nslices, spec.icnt, false);
  reply_net_ = std::make_unique<Crossbar>(nslices, clusters, spec.icnt, true);
  for (uint32_t s = 0; s < nslices; ++s) slices_.push_back(std::make_unique<L2Slice>(s, spec.l2, map_));
  for (uint32_t c = 0; c < spec.dram.channels; ++c) channels_.push_back(std::make_unique<DramChannel>(c, spec.dram));
  partitions_ = std::vector<PartitionState>(spec.dram.channels);
  for (PartitionState& p : partitions_) p.returning = RingQueue<DelayedFill>(spec.dram.return_queue);
}

MemorySystem::~MemorySystem() = default;

void MemorySystem::settle_ports() {
  for (auto* ports : {&to_memory_, &from_memory_, &to_slice_, &from_slice_})
    for (auto& q : *ports) q.settle();
}

void MemorySystem::receive_inputs(uint32_t unit) {
  // The crossbar units then visit only the SM ports and slice outboxes found holding packets.
  if (unit == kRequestNetUnit) {
    receive_all(to_memory_, requesting_sms_, *sms_staged_, unsigned(port_clock_.cycle & 1));
  } else {
    receive_all(from_slice_, replying_slices_, *slices_staged_, unsigned(port_clock_.cycle & 1));
  }
}

void MemorySystem::publish_input_pops(uint32_t unit) {
  // A crossbar unit pops only the ports it found holding packets, and a port
  // needs publishing only in a cycle it popped in and the one after.
  if (unit == kRequestNetUnit) {
    publish_held(to_memory_, requesting_sms_, requested_before_);
  } else {
    publish_held(from_slice_, replying_slices_, replied_before_);
  }
}

void MemorySystem::run_unit(uint32_t unit, const MemoryEdge* edges, size_t count) {
  if (unit >= kFirstPartitionUnit) {
    run_partition(unit - kFirstPartitionUnit, edges, count);
    return;
  }
  receive_inputs(unit);
  if (unit == kRequestNetUnit) {
    // The partitions only peek at their inboxes' marks: this unit, their one
    // producer, clears those of two cycles before (read in the cycle between).
    inbox_stages_->clear(unsigned(port_clock_.cycle & 1));
    for (size_t i = 0; i < count; ++i)
      if (edges[i].clock == MemoryClock::kIcnt) request_net_cycle(edges[i].cycle);
  } else {
    // The SMs' clusters only peek at the reply ports' marks: this unit, their
    // one producer, clears those of two cycles before (read in the cycle between).
    replies_staged_->clear(unsigned(port_clock_.cycle & 1));
    for (size_t i = 0; i < count; ++i)
      if (edges[i].clock == MemoryClock::kIcnt) reply_net_cycle(edges[i].cycle);
  }
  publish_input_pops(unit);
}

void MemorySystem::run_units(uint32_t first, uint32_t last, const MemoryEdge* edges, size_t count) {
  for (uint32_t u = first; u < std::min(last, kFirstPartitionUnit); ++u) run_unit(u, edges, count);
  LastEdges last_edges;
  for (size_t i = 0; i < count; ++i) {
    if (edges[i].clock == MemoryClock::kDram) last_edges.dram = edges[i].cycle;
    else if (edges[i].clock == MemoryClock::kL2) last_edges.l2 = edges[i].cycle;
  }
  for (uint32_t u = std::max(first, kFirstPartitionUnit); u < last; ++u) {
    const uint32_t p = u - kFirstPartitionUnit;
    if (partition_has_work(p, last_edges)) run_partition(p, edges, count);
    else publish_last_pops(p);  // (else only time passes)
  }
}

bool MemorySystem::partition_has_work(uint32_t p, const LastEdges& last) const {
  const PartitionState& state = partitions_[p];
  if (state.awake()) return true;
  // Asleep or dozing: a packet arrived, the channel has an event due, or a
  // request in its slices' tag pipelines is ready (never, asleep: wake is UINT64_MAX).
  return inbox_marks(p) != 0 || (last.dram != UINT64_MAX && last.dram >= state.channel_wake) ||
         last.l2 >= state.wake;
}

uint64_t MemorySystem::inbox_marks(uint32_t p) const {
  // (Read only: the request crossbar, their one producer, clears the marks.)
  const uint32_t first_port = p * inbox_stride_;
  return inbox_stages_->peek(unsigned(port_clock_.cycle & 1) ^ 1, first_port / 64, inbox_mask_ << (first_port % 64)) >>
         (first_port % 64);
}

bool MemorySystem::receive_inboxes(uint32_t p) {
  const uint64_t staged = inbox_marks(p);
  for (uint64_t bits = staged; bits != 0; bits &= bits - 1)
    to_slice_[p * subs_ + uint32_t(std::countr_zero(bits))].receive();
  return staged != 0;
}

void MemorySystem::publish_inbox_pops(uint32_t p) {
  for (uint32_t s = p * subs_; s < (p + 1) * subs_; ++s) to_slice_[s].publish_pops();
}

void MemorySystem::publish_last_pops(uint32_t p) {
  PartitionState& state = partitions_[p];
  if (!state.pops_unpublished) return;
  publish_inbox_pops(p);
  state.pops_unpublished = false;
}

void MemorySystem::run_partition(uint32_t p, const MemoryEdge* edges, size_t count) {
  PartitionState& state = partitions_[p];
  // An inbox needs receive() only after a stage into it: the marks say which.
  const bool arrived = receive_inboxes(p);
  if (state.asleep() && !arrived) {
    sleep_through(p, edges, count);
    publish_last_pops(p);
    return;
  }
  state.moved = 0;
  for (size_t i = 0; i < count; ++i) {
    if (edges[i].clock == MemoryClock::kL2) partition_l2_cycle(p, edges[i].cycle);
    else if (edges[i].clock == MemoryClock::kDram) partition_dram_cycle(p, edges[i].cycle);
  }
  publish_inbox_pops(p);
  state.pops_unpublished = true;
  // A partition whose slices took or gave a packet in this cycle and still
  // hold requests mostly has more to do in the next: not worth asking.
  state.wake = state.moved != 0 && state.in_slices != 0 ? 0 : partition_wake(p);
  if (!state.awake()) state.channel_wake = channels_[p]->next_event(state.dram_now);
}

void MemorySystem::sleep_through(uint32_t p, const MemoryEdge* edges, size_t count) {
  // Nothing arrived and nothing is queued: the slices' cycles would change
  // nothing, the channel's only its clock (refresh, the data bus), and
  // those only at the cycles its next_event names.
  PartitionState& state = partitions_[p];
  for (size_t i = 0; i < count; ++i) {
    if (edges[i].clock == MemoryClock::kL2) {
      state.l2_now = edges[i].cycle;
    } else if (edges[i].clock == MemoryClock::kDram) {
      state.dram_now = edges[i].cycle;
      if (state.dram_now >= state.channel_wake) {
        DramChannel& ch = *channels_[p];
        ch.cycle(state.dram_now);
        state.channel_wake = ch.next_event(state.dram_now);
      }
    }
  }
}

void MemorySystem::request_net_cycle(uint64_t cycle) {
  // SM ports -> request crossbar: one packet per cluster per cycle, from the
  // clusters of the SMs with requests (in increasing order, so each once).
  uint32_t previous = UINT32_MAX;
  for_each_set_bit(requesting_sms_, 0, requesting_sms_.size(), [&](uint32_t sm) {
    const uint32_t c = cluster_of(sm);
    if (c != previous) inject_request(c, cycle);
    previous = c;
  });
  request_net_->cycle(cycle);
  // Crossbar outputs -> slice inboxes (the inbox's room back-pressures the network).
  request_net_->for_each_occupied_output([&](uint32_t s) {
    LatchedQueue<MemPacket>& inbox = to_slice_[s];
    while (request_net_->has_output(s, cycle) && inbox.can_stage()) {
      inbox.stage(request_net_->output_front(s));
      request_net_->pop_output(s);
    }
  });
}

// Cluster c's first SM with a request, from its round-robin pointer on, sends it
// into the crossbar if it fits.
void MemorySystem::inject_request(uint32_t c, uint64_t cycle) {
  const uint32_t first = c * sms_per_cluster_;
  const uint32_t count = std::min(sms_per_cluster_, uint32_t(to_memory_.size()) - first);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t k = cluster_rr_[c] + i < count ? cluster_rr_[c] + i : cluster_rr_[c] + i - count;
    LatchedQueue<MemPacket>& port = to_memory_[first + k];
    if (port.empty()) continue;
    const MemPacket& p = port.front();
    if (!request_net_->can_inject(c, p)) return;
    request_net_->inject(c, cluster_locators_[c].locate(p.addr).slice, p, cycle);
    port.pop();
    cluster_rr_[c] = k + 1 == count ? 0 : k + 1;
    return;
  }
}

void MemorySystem::reply_net_cycle(uint64_t cycle) {
  // Slice outboxes -> reply crossbar: one packet per slice per cycle.
  for_each_set_bit(replying_slices_, 0, replying_slices_.size(), [&](uint32_t s) {
    LatchedQueue<MemPacket>& outbox = from_slice_[s];
    if (outbox.empty() || !reply_net_->can_inject(s, outbox.front())) return;
    reply_net_->inject(s, cluster_of(outbox.front().sm), outbox.front(), cycle);
    outbox.pop();
  });
  reply_net_->cycle(cycle);
  // Reply crossbar -> SM reply ports (the port's capacity back-pressures the network).
  reply_net_->for_each_occupied_output([&](uint32_t c) {
    while (reply_net_->has_output(c, cycle)) {
      const MemPacket& p = reply_net_->output_front(c);
      LatchedQueue<MemPacket>& port = from_memory_[p.sm];
      if (!port.can_stage()) break;
      port.stage(p);
      reply_net_->pop_output(c);
    }
  });
}

uint64_t MemorySystem::partition_wake(uint32_t partition) const {
  // (Every request a slice accepts stays in it until its one reply leaves:
  // with every slice idle, none is in flight.)
  const PartitionState& state = partitions_[partition];
  if (!state.returning.empty() || !channels_[partition]->holds_no_request()) return 0;
  uint64_t wake = UINT64_MAX;
  for (uint32_t s = partition * subs_; s < (partition + 1) * subs_; ++s) {
    const uint64_t until = slices_[s]->quiet_until();
    if (!to_slice_[s].empty() || until == 0) return 0;
    wake = std::min(wake, until);
  }
  return wake;
}

void MemorySystem::partition_l2_cycle(uint32_t partition, uint64_t cycle) {
  partitions_[partition].l2_now = cycle;
  const uint32_t subs = subs_;
  for (uint32_t s = partition * subs; s < (partition + 1) * subs; ++s) {
    L2Slice& slice = *slices_[s];
    LatchedQueue<MemPacket>& inbox = to_slice_[s];
    if (!inbox.empty() && slice.can_accept()) {
      slice.accept(inbox.front(), cycle);
      inbox.pop();
      ++partitions_[partition].in_slices;
      ++partitions_[partition].moved;
    }
    slice.cycle(cycle);
    LatchedQueue<MemPacket>& outbox = from_slice_[s];
    if (slice.has_reply(cycle) && outbox.can_stage()) {
      outbox.stage(slice.reply());
      slice.pop_reply();
      --partitions_[partition].in_slices;
      ++partitions_[partition].moved;
    }
  }
}

void MemorySystem::partition_dram_cycle(uint32_t partition, uint64_t cycle) {
  const uint32_t subs = subs_;
  PartitionState& state = partitions_[partition];
  state.dram_now = cycle;
  DramChannel& ch = *channels_[partition];
  // The partition's slices take turns handing the channel one request per cycle.
  for (uint32_t i = 0, sub = state.channel_rr; i < subs; ++i, sub = sub + 1 == subs ? 0 : sub + 1) {
    L2Slice& slice = *slices_[partition * subs + sub];
    if (!slice.has_dram_request()) continue;
    const DramRequest& r = slice.dram_request();
    if (!ch.can_accept(r.write)) continue;
    ch.push(r, cycle);
    slice.pop_dram_request();
    state.channel_rr = sub + 1 == subs ? 0 : sub + 1;
    break;
  }
  ch.cycle(cycle);
  RingQueue<DelayedFill>& back = state.returning;
  while (ch.has_reply() && back.size() < spec_.dram.return_queue) {
    back.push_back(DelayedFill{cycle + timing_.dram_extra_cycles, ch.reply()});
    ch.pop_reply();
  }
  while (!back.empty() && back.front().ready <= cycle) {
    L2Slice& slice = *slices_[partition * subs + back.front().request.subpartition];
    if (!slice.can_fill()) break;
    slice.fill(back.front().request, state.l2_now);
    back.pop_front();
  }
}

void MemorySystem::copy_to_device(uint64_t addr, uint64_t bytes) {
  for_each_copied_line(addr, bytes, spec_.l2_bytes(), spec_.l2.line_bytes, spec_.l2.sector_bytes,
                       [this](uint64_t line, uint32_t sectors, const uint32_t* byte_masks) {
                         slices_[map_.slice(line)]->warm_line(line, sectors, byte_masks);
                       });
}

void MemorySystem::invalidate_caches() {
  for (auto& s : slices_) s->invalidate();
}

uint64_t MemorySystem::l2_wake() const {
  // The likeliest to be busy first. An asleep partition has nothing queued
  // (inboxes, slices, channel, return queue), a dozing one only requests in
  // its slices' tag pipelines; the channel of either may still be moving
  // write data.
  if (!request_net_->idle() || !reply_net_->idle()) return 0;
  uint64_t wake = UINT64_MAX;
  for (uint32_t p = 0; p < partitions_.size(); ++p) {
    const PartitionState& state = partitions_[p];
    if (state.awake() || !channels_[p]->idle()) return 0;
    wake = std::min(wake, state.wake);
  }
  // Packets staged in the cycle just run (those of the cycle before were
  // received in it: every consumer of these ports takes its marks each cycle).
  const unsigned parity = unsigned(port_clock_.cycle & 1);
  if (sms_staged_->any(parity) || slices_staged_->any(parity) || inbox_stages_->any(parity)) return 0;
  // Packets received and not yet popped: in the ports the crossbar units found holding some.
  bool holding = false;
  for_each_set_bit(requesting_sms_, 0, requesting_sms_.size(),
                   [&](uint32_t sm) { holding |= !to_memory_[sm].empty(); });
  for_each_set_bit(replying_slices_, 0, replying_slices_.size(),
                   [&](uint32_t s) { holding |= !from_slice_[s].empty(); });
  if (holding) return 0;
  for (const auto& q : from_memory_)
    if (!q.idle()) return 0;
  return wake;
}

bool MemorySystem::every_block_idle() const {
  for (const auto* ports : {&to_memory_, &from_memory_, &to_slice_, &from_slice_})
    for (const auto& q : *ports)
      if (!q.idle()) return false;
  if (!request_net_->idle() || !reply_net_->idle()) return false;
  for (const auto& s : slices_)
    if (!s->idle()) return false;
  for (const auto& c : channels_)
    if (!c->idle()) return false;
  for (const auto& p : partitions_)
    if (!p.returning.empty()) return false;
  return true;
}

uint64_t MemorySystem::next_event_when_idle(uint64_t dram_now) const {
  uint64_t next = UINT64_MAX;
  for (const auto& c : channels_) next = std::min(next, c->next_event(dram_now));
  return next;
}

MemoryInstanceStats MemorySystem::take_instance_stats(uint32_t slot) {
  MemoryInstanceStats out;
  out.icnt.push_back({"icnt.request", request_net_->take_stats(slot)});
  out.icnt.push_back({"icnt.reply", reply_net_->take_stats(slot)});
  out.l2.reserve(slices_.size());
  for (auto& s : slices_) out.l2.push_back({"l2.slice" + std::to_string(s->id()), s->take_stats(slot)});
  out.dram.reserve(channels_.size());
  for (auto& c : channels_) out.dram.push_back({"dram.channel" + std::to_string(c->id()), c->take_stats(slot)});
  return out;
}

MemoryStats MemorySystem::take_stats(uint32_t slot) { return take_instance_stats(slot).total(); }

}  // namespace lockstep
