#include "memsys/l2_slice.h"

#include <algorithm>
#include <stdexcept>

#include "memsys/copy_engine.h"

namespace lockstep {
L2Slice::L2Slice(uint32_t id, const L2Spec& spec, const AddressMap& map)
    : id_(id),
      spec_(spec),
      map_(map),
      request_locator_(map),
      fill_locator_(map),
      policy_(spec),
      mshrs_(spec.mshr_entries, spec.mshr_max_merge),
      pipeline_(size_t(spec.latency) + spec.icnt_to_l2_queue),
      input_(spec.icnt_to_l2_queue),
      miss_queue_(size_t(spec.miss_queue) + spec.line_bytes / spec.sector_bytes),
      to_dram_(spec.l2_to_dram_queue),
      fills_(spec.dram_to_l2_queue),
      released_(size_t(spec.mshr_entries) * spec.mshr_max_merge),
      atomic_unit_(spec.atomic_latency),
      replies_(spec.l2_to_icnt_queue) {
  if (!spec.write_validate)
    throw std::invalid_argument(
        "l2.write_validate = false (fetch on write) is modelled by run --model memory only; the cycle model's L2 "
        "is write-validate");
  release_buffer_.reserve(spec.mshr_max_merge);
}

bool L2Slice::can_accept() const {
  // The tag pipeline holds at most `latency` requests when it flows (one enters per cycle).
  return !accepted_this_cycle_ && pipeline_.size() + input_.size() < size_t(spec_.latency) + spec_.icnt_to_l2_queue;
}

void L2Slice::accept(const MemPacket& request, uint64_t now) {
  if (!can_accept()) throw std::logic_error("L2Slice::accept without room");
  pipeline_.push_back(Timed{now + spec_.latency, request});
  accepted_this_cycle_ = true;
}

void L2Slice::fill(const DramRequest& done, uint64_t /*now*/) {
  if (!can_fill()) throw std::logic_error("L2Slice::fill without room");
  fills_.push_back(done);
}

void L2Slice::cycle(uint64_t now) {
  // 1. One sector of DRAM data fills the cache and releases its waiters.
  if (!fills_.empty()) process_fill(now);

  // 2. Replies, one per source per cycle: the atomic unit, then released misses.
  if (!atomic_unit_.empty() && atomic_unit_.front().ready <= now && replies_.size() < spec_.l2_to_icnt_queue) {
    replies_.push_back(Timed{now, atomic_unit_.front().packet.reply()});
    atomic_unit_.pop_front();
  }
  if (!released_.empty() && replies_.size() < spec_.l2_to_icnt_queue) {
    replies_.push_back(Timed{now, released_.front().reply()});
    released_.pop_front();
  }

  // 3. The tag pipeline delivers to the input queue; the head is looked up.
  if (!pipeline_.empty() && pipeline_.front().ready <= now && input_.size() < spec_.icnt_to_l2_queue) {
    input_.push_back(pipeline_.front().packet);
    pipeline_.pop_front();
  }
  if (!input_.empty()) {
    if (lookup(input_.front(), now)) {
      input_.pop_front();
    } else {
      ++stats_[input_.front().stat_slot].reservation_fails;
    }
  }
  // The next cycle's lookup: its tag index slot into the host's cache (no effect on any result).
  if (!input_.empty()) {
    policy_.cache().prefetch(request_local(input_.front().addr));
  } else if (!pipeline_.empty() && pipeline_.front().ready <= now + 1) {
    policy_.cache().prefetch(request_local(pipeline_.front().packet.addr));
  }

  // 4. The miss queue hands one request to the DRAM request queue.
  if (!miss_queue_.empty() && to_dram_.size() < spec_.l2_to_dram_queue) {
    to_dram_.push_back(miss_queue_.front());
    miss_queue_.pop_front();
  }
  accepted_this_cycle_ = false;
}

bool L2Slice::lookup(const MemPacket& request, uint64_t now) {
  const uint64_t local = request_local(request.addr);
  const SectorState state = policy_.lookup(local);
  L2SliceStats& st = stats_[request.stat_slot];
  const bool reply_room = replies_.size() < spec_.l2_to_icnt_queue;
  switch (request.type) {
    case MemPacketType::kRead:
      if (L2CachePolicy::readable(state)) {
        if (!reply_room) return false;
        policy_.hit(local);
        replies_.push_back(Timed{now, request.reply()});
        ++st.read_sectors;
        ++st.read_hits;
        return true;
      }
      if (!fetch(request)) return false;
      ++st.read_sectors;
      return true;
    case MemPacketType::kWrite:
      if (!reply_room || miss_queue_.size() + policy_.writebacks_needed(local) > spec_.miss_queue) return false;
      ++st.write_sectors;
      if (L2CachePolicy::write_hit(state)) ++st.write_hits;
      write_bytes(request.addr, request.byte_mask, request.stat_slot);
      replies_.push_back(Timed{now, request.reply()});
      return true;
    case MemPacketType::kAtomic:
      if (L2CachePolicy::readable(state)) {
        if (atomic_unit_.size() >= spec_.atomic_latency) return false;
        policy_.hit(local);
        start_atomic(request, now);
      } else if (!fetch(request)) {
        return false;
      }
      ++st.atomic_sectors;
      return true;
    default:
      throw std::logic_error("L2Slice: a reply packet reached the slice input");
  }
}

bool L2Slice::fetch(const MemPacket& request) {
  const uint64_t sector = policy_.sector_addr(request.addr);
  if (mshrs_.probe(sector)) {
    if (!mshrs_.merge(sector, request)) return false;
    ++stats_[request.stat_slot].mshr_merges;
    return true;
  }
  if (mshrs_.full() || miss_queue_.size() >= spec_.miss_queue) return false;
  mshrs_.allocate(sector, request);
  miss_queue_.push_back(dram_request_for(sector, false, request.stat_slot));
  return true;
}

void L2Slice::process_fill(uint64_t now) {
  const DramRequest done = fills_.front();
  fills_.pop_front();
  const uint64_t sector = policy_.sector_addr(done.addr);
  ++stats_[done.stat_slot].fill_sectors;
  // Allocate on fill; the sector's bytes written meanwhile stay on top of memory's.
  queue_writebacks(policy_.fill(fill_local(sector)), done.stat_slot);
  release_buffer_.clear();
  mshrs_.release(sector, release_buffer_);
  for (const MemPacket& waiter : release_buffer_) {
    if (waiter.type == MemPacketType::kAtomic) {
      start_atomic(waiter, now);
    } else {
      released_.push_back(waiter);
    }
  }
}

void L2Slice::write_bytes(uint64_t addr, uint32_t mask, uint8_t stat_slot) {
  queue_writebacks(policy_.write(request_local(addr), mask), stat_slot);
}

void L2Slice::queue_writebacks(const VictimWriteBacks& victim, uint8_t stat_slot) {
  victim.for_each([&](uint64_t local_sector) {
    miss_queue_.push_back(dram_request_for(map_.global(id_, local_sector), true, stat_slot));
    ++stats_[stat_slot].writeback_sectors;
  });
}

void L2Slice::start_atomic(const MemPacket& request, uint64_t now) {
  // The read-modify-write leaves the accessed bytes written and dirty.
  write_bytes(request.addr, request.byte_mask, request.stat_slot);
  atomic_unit_.push_back(Timed{now + spec_.atomic_latency, request});
}

DramRequest L2Slice::dram_request_for(uint64_t global_sector, bool write, uint8_t stat_slot) const {
  const DecodedAddress d = map_.decode(global_sector);
  DramRequest r;
  r.addr = global_sector;
  r.bank = d.bank;
  r.row = d.row;
  r.column = d.column;
  r.subpartition = d.subpartition;
  r.write = write;
  r.stat_slot = stat_slot;
  return r;
}

void L2Slice::warm(uint64_t addr, uint32_t bytes) {
  for_each_copied_line(addr, bytes, UINT64_MAX, spec_.line_bytes, spec_.sector_bytes,
                       [this](uint64_t line, uint32_t sectors, const uint32_t* byte_masks) {
                         warm_line(line, sectors, byte_masks);
                       });
}

L2SliceStats L2Slice::take_stats(uint32_t slot) {
  const L2SliceStats s = stats_[slot];
  stats_[slot] = L2SliceStats{};
  return s;
}

}  // namespace lockstep
