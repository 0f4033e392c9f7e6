#include "memsys/dram_channel.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "memsys/bit_set.h"
#include "memsys/dram/scheduler/fcfs.h"
#include "memsys/dram/scheduler/fr_fcfs.h"

namespace lockstep {

const char* dram_command_name(DramCommandType type) {
  switch (type) {
    case DramCommandType::kActivate:
      return "ACT";
    case DramCommandType::kPrecharge:
      return "PRE";
    case DramCommandType::kRead:
      return "RD";
    case DramCommandType::kWrite:
      return "WR";
    case DramCommandType::kReadAutoPrecharge:
      return "RDA";
    case DramCommandType::kWriteAutoPrecharge:
      return "WRA";
    case DramCommandType::kRefresh:
      return "REF";
  }
  return "?";
}

DramChannel::DramChannel(uint32_t id, const DramSpec& spec)
    : id_(id),
      spec_(spec),
      bus_cycles_(std::max<uint32_t>(1, spec.burst_length / std::max<uint32_t>(1, spec.data_rate))),
      refresh_(dram_refresh(spec)),
      refresh_clock_(refresh_timing(refresh_, spec)) {
  if (!std::has_single_bit(spec_.banks)) throw std::invalid_argument("DramChannel: dram.banks must be a power of two");
  if (spec_.bank_groups == 0 || spec_.banks % spec_.bank_groups != 0)
    throw std::invalid_argument("DramChannel: dram.bank_groups must divide dram.banks");
  if (spec_.return_queue == 0 || spec_.sched_queue == 0)
    throw std::invalid_argument("DramChannel: dram.sched_queue and dram.return_queue must be >= 1");
  banks_.resize(spec_.banks);
  open_banks_.assign((spec_.banks + 63) / 64, 0);
  next_column_in_group_.assign(spec_.bank_groups, 0);
  returns_.resize(spec_.return_queue);
  for (RequestQueue* q : {&reads_, &writes_}) {
    q->by_bank.resize(spec_.banks);
    q->hits.resize(spec_.banks);
    q->head_seq.assign(spec_.banks, UINT64_MAX);
    q->waiting_banks.assign(open_banks_.size(), 0);
  }
}

bool DramChannel::can_accept(bool write) const {
  if (write && spec_.write_queue > 0) return writes_.size < spec_.write_queue;
  return reads_.size < spec_.sched_queue;
}

void DramChannel::push(const DramRequest& r, uint64_t now) {
  if (!can_accept(r.write)) throw std::logic_error("DramChannel::push: queue full");
  if (r.bank >= spec_.banks) throw std::out_of_range("DramChannel::push: bank out of range");
  RequestQueue& q = r.write && spec_.write_queue > 0 ? writes_ : reads_;
  q.arriving.push_back(Entry{r, next_seq_++, now + 1});
  ++q.size;
}

bool DramChannel::has_reply() const { return return_count_ != 0 && returns_[return_head_].done <= now_; }

const DramRequest& DramChannel::reply() const { return returns_[return_head_].request; }

void DramChannel::pop_reply() {
  if (!has_reply()) throw std::logic_error("DramChannel::pop_reply: no reply");
  return_head_ = (return_head_ + 1) % returns_.size();
  --return_count_;
}

bool DramChannel::idle() const {
  return reads_.size == 0 && writes_.size == 0 && return_count_ == 0 && now_ + 1 >= write_data_end_;
}

uint64_t DramChannel::next_event(uint64_t now) const {
  if (!quiet()) return now + 1;
  uint64_t next = refresh_clock_.due_at();
  for (size_t i = 0; i < return_count_; ++i) {
    const uint64_t done = returns_[(return_head_ + i) % returns_.size()].done;
    if (done > now) {
      next = std::min(next, done);
      break;
    }
  }
  if (write_data_end_ > now + 1) next = std::min(next, write_data_end_ - 1);
  return std::max(next, now + 1);
}

DramChannelStats DramChannel::take_stats(uint32_t slot) {
  DramChannelStats s = stats_[slot];
  stats_[slot] = DramChannelStats{};
  return s;
}

void DramChannel::log(uint64_t now, DramCommandType type, uint32_t bank, uint32_t row) {
  if (log_ != nullptr) log_->push_back(DramCommand{now, type, bank, row});
}

// ---------------------------------------------------------------------------
// The cycle.

void DramChannel::cycle(uint64_t now) {
  now_ = now;
  // Nothing queued and no refresh owed: replies become visible through now_ alone.
  if (quiet() && now < refresh_clock_.due_at()) return;
  refresh_clock_.note_due(now);
  bool row_slot_free = true;
  uint32_t refreshing = DramCommand::kAllBanks;
  if (refresh_clock_.owed() != 0) {
    const RefreshStep step = refresh_step(now);
    if (step.holds_channel) return;
    if (step.used_row_slot) {
      if (!spec_.dual_command_bus) return;  // the one command of this cycle
      row_slot_free = false;
    }
    refreshing = step.refreshing;
  }
  if (reads_.size == 0 && writes_.size == 0) return;
  update_drain_mode();
  schedule(now, row_slot_free, refreshing);
}

DramChannel::RefreshStep DramChannel::refresh_step(uint64_t now) {
  switch (refresh_) {
    case DramRefresh::kAllBank:
      return all_bank_refresh_step(now);
    case DramRefresh::kPerBank:
      return per_bank_refresh_step(now);
    case DramRefresh::kNone:
      break;  // never owes one
  }
  return RefreshStep{};
}

void DramChannel::update_drain_mode() {
  if (spec_.write_queue == 0) return;  // one shared queue
  const size_t writes = writes_.size;
  if (writes == 0) {
    draining_ = false;
  } else if (reads_.size == 0 || writes >= spec_.write_high_watermark) {
    draining_ = true;
  } else if (writes <= spec_.write_low_watermark) {
    draining_ = false;
  }  // between the watermarks: keep the current mode
}

bool DramChannel::column_ready(const Entry& e, uint64_t now) const {
  const DramRequest& r = e.request;
  const DramBank& bank = banks_[r.bank];
  if (!bank.holds(r.row)) return false;
  if (now < next_column_ || now < next_column_in_group_[group_of(r.bank)]) return false;
  if (r.write) return now >= bank.next_write && now >= next_channel_write_ && now + spec_.tWL >= bus_free_at_;
  return now >= bank.next_read && now >= next_channel_read_ && now + spec_.tCL >= bus_free_at_ &&
         return_count_ < returns_.size();
}

void DramChannel::admit(RequestQueue& q, uint64_t now) {
  size_t n = 0;
  while (n < q.arriving.size() && q.arriving[n].ready_at <= now) {
    const Entry& e = q.arriving[n++];
    const uint32_t b = e.request.bank;
    std::vector<Entry>& list = q.by_bank[b];
    list.push_back(e);
    if (list.size() == 1) {
      q.head_seq[b] = e.seq;
      q.waiting_banks[b / 64] |= uint64_t(1) << (b % 64);
    }
    BankHits& h = q.hits[b];
    if (!h.stale && banks_[b].holds(e.request.row)) {
      int32_t& first = e.request.write ? h.write : h.read;
      if (first < 0) {
        first = int32_t(list.size() - 1);
        (e.request.write ? h.write_seq : h.read_seq) = e.seq;
      }
    }
  }
  if (n != 0) q.arriving.erase(q.arriving.begin(), q.arriving.begin() + n);
}

const DramChannel::BankHits& DramChannel::find_hits(RequestQueue& q, uint32_t b) {
  BankHits& h = q.hits[b];
  h = BankHits{-1, -1, UINT64_MAX, UINT64_MAX, false};
  const DramBank& bank = banks_[b];
  if (!bank.open) return h;
  const std::vector<Entry>& list = q.by_bank[b];
  for (size_t i = 0; i < list.size() && (h.read < 0 || h.write < 0); ++i) {
    const DramRequest& r = list[i].request;
    if (r.row != bank.row) continue;
    int32_t& first = r.write ? h.write : h.read;
    if (first < 0) {
      first = int32_t(i);
      (r.write ? h.write_seq : h.read_seq) = list[i].seq;
    }
  }
  return h;
}

void DramChannel::remove(RequestQueue& q, uint32_t b, int32_t index) {
  std::vector<Entry>& list = q.by_bank[b];
  list.erase(list.begin() + index);
  --q.size;
  if (index == 0) q.head_seq[b] = list.empty() ? UINT64_MAX : list.front().seq;
  if (list.empty()) q.waiting_banks[b / 64] &= ~(uint64_t(1) << (b % 64));
  BankHits& h = q.hits[b];
  if (h.stale) return;
  const DramBank& bank = banks_[b];
  for (const bool write : {false, true}) {
    int32_t& first = write ? h.write : h.read;
    uint64_t& first_seq = write ? h.write_seq : h.read_seq;
    if (first > index) {
      --first;
    } else if (first == index) {  // the next hit of the same kind, if any
      first = -1;
      first_seq = UINT64_MAX;
      for (size_t i = size_t(index); i < list.size(); ++i) {
        if (list[i].request.write == write && list[i].request.row == bank.row) {
          first = int32_t(i);
          first_seq = list[i].seq;
          break;
        }
      }
    }
  }
}

void DramChannel::row_changed(uint32_t b) {
  reads_.hits[b].stale = true;
  writes_.hits[b].stale = true;
}

void DramChannel::open_row(uint32_t b, uint32_t row) {
  row_changed(b);
  banks_[b].open = true;
  banks_[b].row = row;
  open_banks_[b / 64] |= uint64_t(1) << (b % 64);
}

void DramChannel::close_row(uint32_t b) {
  row_changed(b);
  banks_[b].open = false;
  open_banks_[b / 64] &= ~(uint64_t(1) << (b % 64));
}

void DramChannel::schedule(uint64_t now, bool row_slot_free, uint32_t refreshing) {
  admit(reads_, now);
  admit(writes_, now);
  RequestQueue& queue = draining_ ? writes_ : reads_;

  // Column command. FR-FCFS: the oldest request whose row is open and whose
  // column command can issue now; within a bank that is its oldest read or
  // oldest write to the open row, so only those are looked at. FCFS: only the
  // oldest request of the queue (none while its bank is refreshing).
  const ColumnPick pick = spec_.scheduler == DramScheduler::kFrFcfs ? fr_fcfs_column(queue, now, refreshing)
                                                                   : fcfs_column(queue, now, refreshing);
  const uint32_t column_bank = pick.bank;
  const int32_t column_index = pick.index;

  // Row command: the oldest bank head needing a PRE or ACT that can issue now.
  // FR-FCFS leaves a row open while queued requests hit it; FCFS only while its
  // oldest request does.
  uint32_t row_bank = DramCommand::kAllBanks;
  const bool row_allowed = row_slot_free && (spec_.dual_command_bus || column_index < 0);
  if (row_allowed) {
    uint64_t oldest = UINT64_MAX;
    for_each_set_bit(queue.waiting_banks, 0, queue.waiting_banks.size(), [&](uint32_t b) {
      const uint64_t seq = queue.head_seq[b];
      if (seq >= oldest || b == refreshing || b == column_bank) return;
      const DramBank& bank = banks_[b];
      const bool ready = bank.open ? now >= bank.next_pre : now >= bank.next_act && now >= next_activate_;
      if (!ready) return;
      const bool keep_row = spec_.scheduler == DramScheduler::kFrFcfs ? fr_fcfs_keeps_row(queue, b)
                                                                      : fcfs_keeps_row(queue, b);
      if (keep_row) return;
      oldest = seq;
      row_bank = b;
    });
  }

  if (row_bank != DramCommand::kAllBanks) {
    const Entry& head = queue.by_bank[row_bank].front();
    if (banks_[row_bank].open) {
      precharge(row_bank, head.request.stat_slot, now);
    } else {
      activate(head, now);
    }
  }
  if (column_index >= 0) {
    column(queue.by_bank[column_bank][column_index], now);
    remove(queue, column_bank, column_index);
  }
}

// ---------------------------------------------------------------------------
// Commands: each applies its timing consequences.

void DramChannel::activate(const Entry& e, uint64_t now) {
  DramBank& bank = banks_[e.request.bank];
  open_row(e.request.bank, e.request.row);
  bank.act_owner = e.seq;
  bank.next_read = now + spec_.tRCD;
  bank.next_write = now + spec_.tRCDWR;
  bank.next_pre = now + spec_.tRAS;
  bank.next_act = now + spec_.tRC;
  next_activate_ = now + spec_.tRRD;
  ++stats_[e.request.stat_slot].activates;
  log(now, DramCommandType::kActivate, e.request.bank, e.request.row);
}

void DramChannel::precharge(uint32_t b, uint8_t slot, uint64_t now) {
  DramBank& bank = banks_[b];
  close_row(b);
  bank.next_act = std::max(bank.next_act, now + spec_.tRP);
  ++stats_[slot].precharges;
  log(now, DramCommandType::kPrecharge, b, 0);
}

void DramChannel::column(const Entry& e, uint64_t now) {
  const DramRequest& r = e.request;
  DramBank& bank = banks_[r.bank];
  DramChannelStats& s = stats_[r.stat_slot];
  if (e.seq != bank.act_owner) ++s.row_hits;  // the row was not opened for this request
  s.data_bus_cycles += bus_cycles_;
  next_column_ = std::max(next_column_, now + spec_.tCCD);
  uint64_t& group_next = next_column_in_group_[group_of(r.bank)];
  group_next = std::max(group_next, now + spec_.tCCDL);
  if (r.write) {
    const uint64_t data_end = now + spec_.tWL + bus_cycles_;
    bus_free_at_ = data_end;
    write_data_end_ = std::max(write_data_end_, data_end);
    next_channel_read_ = std::max(next_channel_read_, data_end + spec_.tWTR);
    bank.next_pre = std::max(bank.next_pre, data_end + spec_.tWR);
    ++s.write_sectors;
  } else {
    const uint64_t data_end = now + spec_.tCL + bus_cycles_;
    bus_free_at_ = data_end;
    next_channel_write_ = std::max(next_channel_write_, now + spec_.tRTW);
    bank.next_pre = std::max(bank.next_pre, now + spec_.tRTPL);
    const size_t tail = (return_head_ + return_count_) % returns_.size();
    returns_[tail] = ReturnSlot{data_end, r};
    ++return_count_;
    ++s.read_sectors;
  }
  if (spec_.page_policy == PagePolicy::kClosed) {
    closed_page_after_column(r, now);
  } else {
    open_page_after_column(r, now);
  }
}

}  // namespace lockstep
