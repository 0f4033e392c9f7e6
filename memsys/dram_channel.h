#pragma once
// One DRAM channel (one per memory partition), stepped one DRAM command-clock
// cycle at a time by its owner. It models the device's banks and bank groups,
// the command and data buses, refresh, and the memory controller's request
// queues and command scheduler, after GPGPU-Sim's dram.cc / dram_sched.cc and
// the HBM model of Accel-Sim (accel-sim.txt §IV; volta-memory-system.txt §II:
// dual command bus, separate read/write buffers).
//
// Rules (all times in DRAM command-clock cycles, spec fields in memory_spec.h):
//  - Bank group of a bank = bank % dram.bank_groups (consecutive banks sit in
//    different groups, so a linear bank stream alternates groups).
//  - ACT: tRRD after any ACT (any bank), tRC after an ACT to the same bank, tRP
//    after its PRE, tRFC after its REF. RD: tRCD after the ACT; WR: tRCDWR.
//    PRE: tRAS after the ACT, tRTPL after a RD, tWR after the end of write data.
//  - Column commands (RD/WR): tCCDL after a column command to the same bank
//    group, tCCD after one to any group; a RD tWTR after the end of the last
//    write data; a WR tRTW after the last RD. Each moves access_bytes() (32 B)
//    in max(1, burst_length / data_rate) data-bus cycles, starting tCL (RD) or
//    tWL (WR) after the command; bursts never overlap on the bus.
//  - Command bus: one command per cycle, or with dram.dual_command_bus one row
//    command (ACT/PRE/REF) and one column command (RD/WR) in the same cycle.
//  - Refresh (the policy dram_refresh(spec) picks, memsys/dram/refresh/): none
//    when tREFI = 0. All-bank (GDDR) every tREFI: new commands stop, open
//    banks are precharged, then REF blocks every bank for tRFC. Per-bank
//    (dram.per_bank_refresh, HBM REFSB): every tREFI / banks the next bank in
//    rotation is precharged and refreshed for tRFC; the other banks keep working.
//  - Scheduling: requests are considered in age order (per bank too). FR-FCFS:
//    the oldest request whose row is open and whose column command can issue
//    now; row commands open the row of each bank's oldest request (PRE if
//    another row is open, then ACT), the oldest such bank first, but never close
//    a row that queued requests still hit. FCFS: column commands strictly in
//    arrival order (only the oldest request may read or write); row commands may
//    prepare each bank for its oldest request ahead of time.
//  - Queues: dram.sched_queue entries. With dram.write_queue > 0, writes wait in
//    their own queue and are served in drains: a drain starts when the write
//    queue holds write_high_watermark entries or no read is waiting, and stops
//    once it is down to write_low_watermark while reads wait. Only the queue
//    being served issues commands.
//  - Page policy: open keeps rows open; closed issues RDA/WRA, the bank
//    precharging itself as soon as tRAS and tRTPL (tWR) allow.
//  - Replies: a read replies when its last data beat has arrived (RD + tCL +
//    bus cycles), in that order; reads in flight plus replies not yet taken are
//    bounded by dram.return_queue (no RD issues while it is full).
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memsys/dram/refresh/refresh_clock.h"
#include "memsys/dram_bank.h"
#include "memsys/dram_request.h"
#include "memsys/mem_packet.h"
#include "configs/spec/memory_spec.h"
#include "configs/spec/policy_registry.h"
#include "memsys/dram_channel_stats.h"

namespace lockstep {

enum class DramCommandType : uint8_t {
  kActivate = 0,
  kPrecharge,
  kRead,
  kWrite,
  kReadAutoPrecharge,   // RDA (closed page policy)
  kWriteAutoPrecharge,  // WRA (closed page policy)
  kRefresh,
};
const char* dram_command_name(DramCommandType type);

// One command put on the command bus (for tracing and tests).
struct DramCommand {
  static constexpr uint32_t kAllBanks = UINT32_MAX;  // bank of an all-bank REF
  uint64_t cycle = 0;
  DramCommandType type = DramCommandType::kActivate;
  uint32_t bank = 0;
  uint32_t row = 0;  // ACT, RD, WR: the row; PRE, REF: 0
};

class DramChannel {
 public:
  DramChannel(uint32_t id, const DramSpec& spec);

  uint32_t id() const { return id_; }

  // Room in the read queue (or the write queue when dram.write_queue > 0).
  bool can_accept(bool write) const;
  // Enqueue a request at DRAM cycle `now`; it is schedulable from now + 1.
  void push(const DramRequest& r, uint64_t now);
  // One command-clock cycle: refresh, pick and issue command(s), complete data.
  void cycle(uint64_t now);

  // A read whose data burst has fully arrived, in completion order.
  bool has_reply() const;
  const DramRequest& reply() const;
  void pop_reply();

  // No queued request, no read in flight or waiting to be taken, no write data
  // still on the bus (a refresh alone does not count).
  bool idle() const;
  // No queued request and no read in flight or waiting to be taken: cycle()
  // can produce no reply (it still keeps time: refresh, the data bus).
  bool holds_no_request() const { return reads_.size == 0 && writes_.size == 0 && return_count_ == 0; }
  // Earliest cycle after `now` at which cycle() can change anything (for
  // fast-forwarding); UINT64_MAX when nothing ever will.
  uint64_t next_event(uint64_t now) const;

  const DramChannelStats& stats(uint32_t slot) const { return stats_[slot]; }
  DramChannelStats take_stats(uint32_t slot);

  // Optional trace of every command issued (nullptr: off).
  void set_command_log(std::vector<DramCommand>* log) { log_ = log; }

  uint32_t bus_cycles() const { return bus_cycles_; }  // data-bus cycles per column command
  size_t queued_reads() const { return reads_.size; }  // (all requests when writes share the queue)
  size_t queued_writes() const { return writes_.size; }
  bool draining_writes() const { return draining_; }

 private:
  struct Entry {
    DramRequest request;
    uint64_t seq = 0;       // arrival order
    uint64_t ready_at = 0;  // first cycle the scheduler may see it
  };
  // Where a bank's oldest requests hitting its open row sit in the bank's list.
  struct BankHits {
    int32_t read = -1;   // oldest read to the open row (-1: none, or the bank is closed)
    int32_t write = -1;  // oldest write to the open row
    uint64_t read_seq = UINT64_MAX;   // its seq (UINT64_MAX: none)
    uint64_t write_seq = UINT64_MAX;
    bool stale = true;   // the list or the bank's row changed since they were found
  };
  // One request queue, kept per bank in age order so that a cycle looks at each
  // bank's oldest request and oldest row hits only (the age order of the whole
  // queue is that of the banks' sequence numbers). A request waits in `arriving`
  // until its ready_at cycle, then joins its bank's list.
  struct RequestQueue {
    std::vector<std::vector<Entry>> by_bank;
    std::vector<BankHits> hits;
    std::vector<uint64_t> head_seq;  // seq of each bank's oldest request (UINT64_MAX: none), packed for the scan
    std::vector<uint64_t> waiting_banks;  // bit set: banks whose list holds requests (the scans visit only these)
    std::vector<Entry> arriving;  // push order (ready_at never decreases)
    size_t size = 0;              // all requests, arriving ones included
  };
  struct ReturnSlot {
    uint64_t done = 0;  // cycle whose cycle() makes the reply visible (last beat arrived)
    DramRequest request;
  };

  // (bank_groups divides banks, a power of two: a power of two itself)
  uint32_t group_of(uint32_t bank) const { return bank & (spec_.bank_groups - 1); }
  bool quiet() const { return reads_.size == 0 && writes_.size == 0 && refresh_clock_.owed() == 0; }

  // The refresh policies (memsys/dram/refresh/), selected by a switch on a
  // cycle that owes a refresh: what the refresh did and leaves to the scheduler.
  struct RefreshStep {
    bool used_row_slot = false;  // a PRE or REF took the row command slot
    bool holds_channel = false;  // no other command may issue this cycle
    uint32_t refreshing = DramCommand::kAllBanks;  // the bank taking no new commands (kAllBanks: none)
  };
  RefreshStep refresh_step(uint64_t now);
  RefreshStep all_bank_refresh_step(uint64_t now);
  RefreshStep per_bank_refresh_step(uint64_t now);
  void update_drain_mode();
  // `refreshing`: the bank that owes a refresh and takes no new commands (kAllBanks: none).
  void schedule(uint64_t now, bool row_slot_free, uint32_t refreshing);

  // The schedulers (memsys/dram/scheduler/), selected by a switch per DRAM
  // cycle: the column command to issue now, and whether a bank's open row
  // must stay open (no PRE) for the requests queued to it.
  struct ColumnPick {
    uint32_t bank = DramCommand::kAllBanks;
    int32_t index = -1;  // in the bank's list; -1: none
  };
  // The row rules are asked per bank: they are defined inline in the
  // schedulers' headers (fr_fcfs.h, fcfs.h), which dram_channel.cc includes.
  ColumnPick fr_fcfs_column(RequestQueue& queue, uint64_t now, uint32_t refreshing);
  inline bool fr_fcfs_keeps_row(RequestQueue& queue, uint32_t bank);
  ColumnPick fcfs_column(const RequestQueue& queue, uint64_t now, uint32_t refreshing) const;
  inline bool fcfs_keeps_row(const RequestQueue& queue, uint32_t bank) const;

  // Moves the requests whose ready_at has come from `arriving` to their banks.
  void admit(RequestQueue& q, uint64_t now);
  // The bank's row hits in `q`, found again if stale.
  const BankHits& hits_of(RequestQueue& q, uint32_t bank) {
    BankHits& h = q.hits[bank];
    return h.stale ? find_hits(q, bank) : h;
  }
  const BankHits& find_hits(RequestQueue& q, uint32_t bank);
  // Takes a request that issued out of its bank's list.
  void remove(RequestQueue& q, uint32_t bank, int32_t index);
  // The bank's open row changed: its row hits must be found again.
  void row_changed(uint32_t bank);
  // Opens row `row` of the bank / closes it (DramBank::open and open_banks_).
  void open_row(uint32_t bank, uint32_t row);
  void close_row(uint32_t bank);

  bool column_ready(const Entry& e, uint64_t now) const;

  void activate(const Entry& e, uint64_t now);
  void precharge(uint32_t bank, uint8_t slot, uint64_t now);
  void column(const Entry& e, uint64_t now);
  // The page policies (memsys/dram/page_policy/): what a column command leaves behind.
  void open_page_after_column(const DramRequest& r, uint64_t now);
  void closed_page_after_column(const DramRequest& r, uint64_t now);
  void refresh_all(uint64_t now);
  void refresh_bank(uint32_t bank, uint64_t now);
  void log(uint64_t now, DramCommandType type, uint32_t bank, uint32_t row);

  uint32_t id_;
  DramSpec spec_;
  uint32_t bus_cycles_;        // max(1, burst_length / data_rate)

  RequestQueue reads_;   // holds writes too when dram.write_queue == 0
  RequestQueue writes_;  // used when dram.write_queue > 0
  bool draining_ = false;      // serving the write queue
  uint64_t next_seq_ = 1;

  std::vector<DramBank> banks_;
  std::vector<uint64_t> open_banks_;            // bit set: banks holding an open row
  std::vector<uint64_t> next_column_in_group_;  // tCCDL
  uint64_t next_column_ = 0;                    // tCCD
  uint64_t next_activate_ = 0;                  // tRRD
  uint64_t next_channel_read_ = 0;              // tWTR
  uint64_t next_channel_write_ = 0;             // tRTW
  uint64_t bus_free_at_ = 0;                    // first cycle the data bus carries no scheduled burst
  uint64_t write_data_end_ = 0;                 // end of the last write burst

  // Refresh: the policy (dram_refresh(spec), fixed), when refreshes fall due.
  DramRefresh refresh_;
  RefreshClock refresh_clock_;
  uint32_t refresh_bank_ = 0;  // next bank of the per-bank rotation (per_bank.cc)

  // Reads in flight, then replies waiting to be taken: one FIFO in completion order.
  std::vector<ReturnSlot> returns_;
  size_t return_head_ = 0;
  size_t return_count_ = 0;

  uint64_t now_ = 0;  // last cycle() seen
  std::array<DramChannelStats, kStatSlots> stats_{};
  std::vector<DramCommand>* log_ = nullptr;
};

}  // namespace lockstep
