#include "memsys/memory_system.h"

#include <algorithm>

namespace lockstep {

MemorySystem::MemorySystem(const MemorySpec& spec, uint32_t sms, uint32_t sms_per_cluster, uint32_t dram_extra_cycles)
    : spec_(spec),
      sms_per_cluster_(std::max(sms_per_cluster, 1u)),
      dram_extra_cycles_(dram_extra_cycles),
      map_(spec) {
  const uint32_t clusters = (sms + sms_per_cluster_ - 1) / sms_per_cluster_;
  to_memory_.reserve(sms);
  from_memory_.reserve(sms);
  for (uint32_t s = 0; s < sms; ++s) {
    to_memory_.emplace_back(spec.l1d.miss_queue);
    from_memory_.emplace_back(spec.icnt.sm_ejection_buffer);
  }
  cluster_rr_.assign(clusters, 0);
  const uint32_t nslices = spec.l2_slices();
  request_net_ = std::make_unique<Crossbar>(clusters, nslices, spec.icnt, false);
  reply_net_ = std::make_unique<Crossbar>(nslices, clusters, spec.icnt, true);
  for (uint32_t s = 0; s < nslices; ++s) slices_.push_back(std::make_unique<L2Slice>(s, spec.l2, map_));
  for (uint32_t c = 0; c < spec.dram.channels; ++c) channels_.push_back(std::make_unique<DramChannel>(c, spec.dram));
  channel_rr_.assign(spec.dram.channels, 0);
  returning_.resize(spec.dram.channels);
}

MemorySystem::~MemorySystem() = default;

void MemorySystem::commit_ports() {
  in_ports_ = 0;
  for (auto& q : to_memory_) {
    q.commit();
    in_ports_ += q.size();
  }
  for (auto& q : from_memory_) q.commit();
}

void MemorySystem::icnt_cycle(uint64_t cycle) {
  icnt_now_ = cycle;
  // SM ports -> request crossbar: one packet per cluster per cycle, its SMs round robin.
  if (in_ports_ > 0) {
    const uint32_t nsms = uint32_t(to_memory_.size());
    for (uint32_t c = 0; c < cluster_rr_.size(); ++c) {
      const uint32_t first = c * sms_per_cluster_, count = std::min(sms_per_cluster_, nsms - first);
      for (uint32_t i = 0; i < count; ++i) {
        const uint32_t sm = first + (cluster_rr_[c] + i) % count;
        LatchedQueue<MemPacket>& port = to_memory_[sm];
        if (port.empty()) continue;
        const MemPacket& p = port.front();
        if (!request_net_->can_inject(c, p)) break;
        request_net_->inject(c, map_.slice(p.addr), p, cycle);
        port.pop();
        --in_ports_;
        cluster_rr_[c] = (sm - first + 1) % count;
        break;
      }
    }
  }
  request_net_->cycle(cycle);
  reply_net_->cycle(cycle);
  // Reply crossbar -> SM reply ports (the port's capacity back-pressures the network).
  for (uint32_t c = 0; c < cluster_rr_.size(); ++c) {
    while (reply_net_->has_output(c, cycle)) {
      const MemPacket& p = reply_net_->output_front(c);
      LatchedQueue<MemPacket>& port = from_memory_[p.sm];
      if (!port.can_stage()) break;
      port.stage(p);
      reply_net_->pop_output(c);
    }
  }
}

void MemorySystem::l2_cycle(uint64_t cycle) {
  l2_now_ = cycle;
  for (uint32_t s = 0; s < slices_.size(); ++s) {
    L2Slice& slice = *slices_[s];
    if (request_net_->has_output(s, icnt_now_) && slice.can_accept()) {
      slice.accept(request_net_->output_front(s), cycle);
      request_net_->pop_output(s);
    }
    slice.cycle(cycle);
    if (slice.has_reply(cycle)) {
      const MemPacket& r = slice.reply();
      if (reply_net_->can_inject(s, r)) {
        reply_net_->inject(s, cluster_of(r.sm), r, icnt_now_);
        slice.pop_reply();
      }
    }
  }
}

void MemorySystem::dram_cycle(uint64_t cycle) {
  const uint32_t subs = spec_.l2.subpartitions;
  for (uint32_t c = 0; c < channels_.size(); ++c) {
    DramChannel& ch = *channels_[c];
    // The partition's slices take turns handing the channel one request per cycle.
    for (uint32_t i = 0; i < subs; ++i) {
      const uint32_t sub = (channel_rr_[c] + i) % subs;
      L2Slice& slice = *slices_[c * subs + sub];
      if (!slice.has_dram_request()) continue;
      const DramRequest& r = slice.dram_request();
      if (!ch.can_accept(r.write)) continue;
      ch.push(r, cycle);
      slice.pop_dram_request();
      channel_rr_[c] = (sub + 1) % subs;
      break;
    }
    ch.cycle(cycle);
    std::deque<DelayedFill>& back = returning_[c];
    while (ch.has_reply() && back.size() < spec_.dram.return_queue) {
      back.push_back(DelayedFill{cycle + dram_extra_cycles_, ch.reply()});
      ch.pop_reply();
    }
    while (!back.empty() && back.front().ready <= cycle) {
      L2Slice& slice = *slices_[c * subs + back.front().request.subpartition];
      if (!slice.can_fill()) break;
      slice.fill(back.front().request, l2_now_);
      back.pop_front();
    }
  }
}

void MemorySystem::copy_to_device(uint64_t addr, uint64_t bytes) {
  // Only the last L2-sized part of a copy can still be in the L2 when it ends.
  const uint64_t keep = spec_.l2_bytes();
  if (bytes > keep) {
    addr += bytes - keep;
    bytes = keep;
  }
  const uint64_t sector = kPacketSectorBytes;
  for (uint64_t a = addr; a < addr + bytes;) {
    const uint64_t end = std::min(addr + bytes, (a / sector + 1) * sector);
    slices_[map_.slice(a)]->warm(a, uint32_t(end - a));
    a = end;
  }
}

bool MemorySystem::idle() const {
  for (const auto& q : to_memory_)
    if (!q.idle()) return false;
  for (const auto& q : from_memory_)
    if (!q.idle()) return false;
  if (!request_net_->idle() || !reply_net_->idle()) return false;
  for (const auto& s : slices_)
    if (!s->idle()) return false;
  for (const auto& c : channels_)
    if (!c->idle()) return false;
  for (const auto& r : returning_)
    if (!r.empty()) return false;
  return true;
}

MemoryStats MemorySystem::take_stats(uint32_t slot) {
  MemoryStats total;
  total += request_net_->take_stats(slot);
  total += reply_net_->take_stats(slot);
  for (auto& s : slices_) total += s->take_stats(slot);
  for (auto& c : channels_) total += c->take_stats(slot);
  return total;
}

}  // namespace lockstep
