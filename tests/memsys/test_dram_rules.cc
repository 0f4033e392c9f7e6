// One named test per DRAM channel rule (memsys/dram_channel.h), each with exact
// command cycles on a small hand-made channel. Requests pushed at cycle t are
// schedulable from t + 1; the rig calls cycle(1), cycle(2), ... in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "memsys/dram_channel.h"
#include "configs/spec/memory_spec.h"

namespace lockstep {
namespace {

using Cmd = DramCommandType;
constexpr uint64_t kNever = UINT64_MAX;

// 4 banks in 2 groups (group = bank % 2); 128-bit bus, burst 2 at DDR: one
// data-bus cycle per 32 B column command. Every timing differs so each rule's
// cycle is recognisable.
DramSpec test_spec() {
  DramSpec s;
  s.type = DramType::kGddr6;
  s.channels = 1;
  s.bus_width_bits = 128;
  s.burst_length = 2;
  s.data_rate = 2;
  s.banks = 4;
  s.bank_groups = 2;
  s.tCCD = 2;
  s.tCCDL = 3;
  s.tRRD = 4;
  s.tRCD = 5;
  s.tRCDWR = 3;
  s.tRAS = 12;
  s.tRP = 6;
  s.tRC = 20;
  s.tCL = 7;
  s.tWL = 2;
  s.tWR = 4;
  s.tWTR = 3;
  s.tRTW = 9;
  s.tRTPL = 2;
  s.tREFI = 0;
  s.tRFC = 0;
  s.per_bank_refresh = false;
  s.scheduler = DramScheduler::kFrFcfs;
  s.sched_queue = 16;
  s.write_queue = 0;
  s.return_queue = 16;
  s.dual_command_bus = true;
  s.page_policy = PagePolicy::kOpen;
  return s;
}

DramRequest read(uint32_t bank, uint32_t row, uint8_t slot = 0) {
  DramRequest r;
  r.bank = bank;
  r.row = row;
  r.addr = (uint64_t(row) << 16) | (bank << 8);
  r.stat_slot = slot;
  return r;
}

DramRequest write(uint32_t bank, uint32_t row, uint8_t slot = 0) {
  DramRequest r = read(bank, row, slot);
  r.write = true;
  return r;
}

// A channel, its command trace and the cycles at which replies appeared.
class Rig {
 public:
  explicit Rig(const DramSpec& spec, bool take_replies = true) : channel_(0, spec), take_replies_(take_replies) {
    MemorySpec m;
    m.dram = spec;
    m.validate();  // the hand-made spec is a legal config
    channel_.set_command_log(&log_);
  }

  DramChannel& channel() { return channel_; }
  uint64_t now() const { return now_; }
  void push(const DramRequest& r) { channel_.push(r, now_); }
  void run_to(uint64_t last) {
    while (now_ < last) {
      ++now_;
      channel_.cycle(now_);
      while (take_replies_ && channel_.has_reply()) {
        reply_cycles_.push_back(now_);
        channel_.pop_reply();
      }
    }
  }

  // Cycle of the nth command of `type` (to `bank`, unless any_bank), or kNever.
  uint64_t at(Cmd type, uint32_t bank, size_t nth = 0) const {
    for (const DramCommand& c : log_) {
      if (c.type == type && c.bank == bank && nth-- == 0) return c.cycle;
    }
    return kNever;
  }
  std::vector<uint64_t> cycles(Cmd type) const {
    std::vector<uint64_t> out;
    for (const DramCommand& c : log_)
      if (c.type == type) out.push_back(c.cycle);
    return out;
  }
  size_t count(Cmd type) const { return cycles(type).size(); }
  const std::vector<uint64_t>& reply_cycles() const { return reply_cycles_; }

 private:
  DramChannel channel_;
  bool take_replies_;
  std::vector<DramCommand> log_;
  std::vector<uint64_t> reply_cycles_;
  uint64_t now_ = 0;
};

// --- Row timing ------------------------------------------------------------

TEST(DramRules, ActivateToReadWaitsTrcd) {
  Rig rig(test_spec());
  rig.push(read(0, 1));
  rig.run_to(30);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0), 1u);
  EXPECT_EQ(rig.at(Cmd::kRead, 0), 1u + 5);  // tRCD
}

TEST(DramRules, ActivateToWriteWaitsTrcdwr) {
  Rig rig(test_spec());
  rig.push(write(0, 1));
  rig.run_to(30);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0), 1u);
  EXPECT_EQ(rig.at(Cmd::kWrite, 0), 1u + 3);  // tRCDWR
}

TEST(DramRules, ActivatesToDifferentBanksWaitTrrd) {
  Rig rig(test_spec());
  rig.push(read(0, 1));
  rig.push(read(1, 1));
  rig.run_to(30);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0), 1u);
  EXPECT_EQ(rig.at(Cmd::kActivate, 1), 1u + 4);  // tRRD
  EXPECT_EQ(rig.at(Cmd::kRead, 1), 5u + 5);
}

// Row conflict in bank 0: ACT 1, RD 6; PRE waits tRAS (1 + 12), not tRTPL (6 + 2).
TEST(DramRules, ActivateToPrechargeWaitsTras) {
  Rig rig(test_spec());
  rig.push(read(0, 1));
  rig.push(read(0, 2));
  rig.run_to(40);
  EXPECT_EQ(rig.at(Cmd::kRead, 0), 6u);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0), 1u + 12);
}

// Same conflict: the second ACT waits tRC (1 + 20) although tRP (13 + 6 = 19) is met.
TEST(DramRules, ActivateToActivateSameBankWaitsTrc) {
  Rig rig(test_spec());
  rig.push(read(0, 1));
  rig.push(read(0, 2));
  rig.run_to(40);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0, 1), 1u + 20);
  EXPECT_EQ(rig.at(Cmd::kRead, 0, 1), 21u + 5);
}

// With tRC = tRAS the second ACT waits tRP after the PRE at 13.
TEST(DramRules, PrechargeToActivateWaitsTrp) {
  DramSpec spec = test_spec();
  spec.tRC = 12;
  Rig rig(spec);
  rig.push(read(0, 1));
  rig.push(read(0, 2));
  rig.run_to(40);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0), 13u);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0, 1), 13u + 6);
}

// With tRAS = tRCD the PRE after the RD at 6 waits tRTPL.
TEST(DramRules, ReadToPrechargeWaitsTrtpl) {
  DramSpec spec = test_spec();
  spec.tRAS = 5;
  Rig rig(spec);
  rig.push(read(0, 1));
  rig.push(read(0, 2));
  rig.run_to(40);
  EXPECT_EQ(rig.at(Cmd::kRead, 0), 6u);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0), 6u + 2);
}

// WR at 4; its data occupies cycles 6 (tWL) and ends at 7; PRE waits tWR after that.
TEST(DramRules, WriteToPrechargeWaitsTwlPlusDataPlusTwr) {
  DramSpec spec = test_spec();
  spec.tRAS = 5;
  Rig rig(spec);
  rig.push(write(0, 1));
  rig.push(read(0, 2));
  rig.run_to(40);
  EXPECT_EQ(rig.at(Cmd::kWrite, 0), 4u);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0), 4u + 2 + 1 + 4);
}

// --- Column timing ---------------------------------------------------------

// A (bank 0) RD 6; C (bank 0, same group) waits tCCDL: 9; B (bank 1, other group,
// tRCD met at 10) waits tCCD after C: 11; D (bank 1) waits tCCDL after B: 14.
TEST(DramRules, ColumnCommandsWaitTccdlInGroupAndTccdAcross) {
  Rig rig(test_spec());
  rig.push(read(0, 1));  // A
  rig.push(read(1, 1));  // B
  rig.push(read(0, 1));  // C
  rig.push(read(1, 1));  // D
  rig.run_to(40);
  EXPECT_EQ(rig.at(Cmd::kActivate, 1), 5u);
  EXPECT_EQ(rig.at(Cmd::kRead, 0, 0), 6u);
  EXPECT_EQ(rig.at(Cmd::kRead, 0, 1), 6u + 3);
  EXPECT_EQ(rig.at(Cmd::kRead, 1, 0), 9u + 2);
  EXPECT_EQ(rig.at(Cmd::kRead, 1, 1), 11u + 3);
}

// The reply appears once the last beat has arrived: RD + tCL + bus cycles.
TEST(DramRules, ReadReplyAfterTclPlusBurst) {
  Rig rig(test_spec());
  rig.push(read(0, 1));
  rig.run_to(13);
  EXPECT_TRUE(rig.reply_cycles().empty());
  rig.run_to(30);
  ASSERT_EQ(rig.reply_cycles().size(), 1u);
  EXPECT_EQ(rig.reply_cycles()[0], 6u + 7 + 1);

  DramSpec spec = test_spec();
  spec.bus_width_bits = 64;
  spec.burst_length = 4;  // two data-bus cycles per 32 B
  Rig burst(spec);
  burst.push(read(0, 1));
  burst.run_to(30);
  ASSERT_EQ(burst.reply_cycles().size(), 1u);
  EXPECT_EQ(burst.reply_cycles()[0], 6u + 7 + 2);
  EXPECT_EQ(burst.channel().stats(0).data_bus_cycles, 2u);
}

// WR at 4, data ends at 7; a later read to the open row waits tWTR: 10 (tCCDL would allow 7).
TEST(DramRules, WriteToReadWaitsTwtrAfterWriteData) {
  Rig rig(test_spec());
  rig.push(write(0, 1));
  rig.run_to(4);
  ASSERT_EQ(rig.at(Cmd::kWrite, 0), 4u);
  rig.push(read(0, 1));
  rig.run_to(30);
  EXPECT_EQ(rig.at(Cmd::kRead, 0), 4u + 2 + 1 + 3);
}

// RD at 6; a later write to the open row waits tRTW: 15 (tCCDL would allow 9).
TEST(DramRules, ReadToWriteWaitsTrtw) {
  Rig rig(test_spec());
  rig.push(read(0, 1));
  rig.run_to(6);
  ASSERT_EQ(rig.at(Cmd::kRead, 0), 6u);
  rig.push(write(0, 1));
  rig.run_to(30);
  EXPECT_EQ(rig.at(Cmd::kWrite, 0), 6u + 9);
}

// 32 row hits, two bus cycles each, tCCDL = 2: after the first RD the data bus is
// busy every cycle until the last beat.
TEST(DramRules, RowHitStreamKeepsDataBusFullyBusy) {
  DramSpec spec = test_spec();
  spec.bus_width_bits = 64;
  spec.burst_length = 4;
  spec.tCCD = 1;
  spec.tCCDL = 2;
  spec.sched_queue = 32;
  spec.return_queue = 64;
  Rig rig(spec);
  for (int i = 0; i < 32; ++i) rig.push(read(0, 1, 2));
  rig.run_to(200);
  const std::vector<uint64_t> reads = rig.cycles(Cmd::kRead);
  ASSERT_EQ(reads.size(), 32u);
  ASSERT_EQ(rig.reply_cycles().size(), 32u);
  for (size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(reads[i], 6 + 2 * i);
    EXPECT_EQ(rig.reply_cycles()[i], 6 + 7 + 2 + 2 * i);
  }
  const DramChannelStats& s = rig.channel().stats(2);
  EXPECT_EQ(s.data_bus_cycles, 64u);
  // First beat at 6 + 7 = 13, last reply at 77: 64 bus cycles in 64 cycles.
  EXPECT_EQ(rig.reply_cycles().back() - (6 + 7), s.data_bus_cycles);
  EXPECT_EQ(s.read_sectors, 32u);
  EXPECT_EQ(s.activates, 1u);
  EXPECT_EQ(s.row_hits, 31u);
  EXPECT_TRUE(rig.channel().idle());
}

// --- Command bus -------------------------------------------------------------

// With tRRD = 5 the ACT for bank 1 and the RD for bank 0 both want cycle 6.
TEST(DramRules, DualCommandBusIssuesRowAndColumnTogether) {
  DramSpec spec = test_spec();
  spec.tRRD = 5;
  Rig dual(spec);
  dual.push(read(0, 1));
  dual.push(read(1, 1));
  dual.run_to(30);
  EXPECT_EQ(dual.at(Cmd::kRead, 0), 6u);
  EXPECT_EQ(dual.at(Cmd::kActivate, 1), 6u);
  EXPECT_EQ(dual.at(Cmd::kRead, 1), 11u);

  spec.dual_command_bus = false;
  Rig single(spec);
  single.push(read(0, 1));
  single.push(read(1, 1));
  single.run_to(30);
  EXPECT_EQ(single.at(Cmd::kRead, 0), 6u);  // the row hit goes first
  EXPECT_EQ(single.at(Cmd::kActivate, 1), 7u);
  EXPECT_EQ(single.at(Cmd::kRead, 1), 12u);
}

// --- Scheduling ----------------------------------------------------------------

// Row 1 of bank 0 is open (A). B (row 2) then C (row 1) arrive at 10.
// FR-FCFS: C hits at 11, B precharges at 13 (tRAS), ACT 21 (tRC), RD 26.
// FCFS: B first (PRE 13, ACT 21, RD 26), then C reopens row 1: PRE 33, ACT 41, RD 46.
TEST(DramRules, FrFcfsServesYoungerRowHitBeforeOlderMiss) {
  Rig rig(test_spec());
  rig.push(read(0, 1));
  rig.run_to(10);
  rig.push(read(0, 2));
  rig.push(read(0, 1));
  rig.run_to(60);
  EXPECT_EQ(rig.at(Cmd::kRead, 0, 1), 11u);  // C
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0), 13u);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0, 1), 21u);
  EXPECT_EQ(rig.at(Cmd::kRead, 0, 2), 26u);  // B
  EXPECT_EQ(rig.channel().stats(0).row_hits, 1u);
  EXPECT_EQ(rig.channel().stats(0).activates, 2u);
}

TEST(DramRules, FcfsServesStrictlyInArrivalOrder) {
  DramSpec spec = test_spec();
  spec.scheduler = DramScheduler::kFcfs;
  Rig rig(spec);
  rig.push(read(0, 1));
  rig.run_to(10);
  rig.push(read(0, 2));
  rig.push(read(0, 1));
  rig.run_to(60);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0, 0), 13u);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0, 1), 21u);
  EXPECT_EQ(rig.at(Cmd::kRead, 0, 1), 26u);  // B
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0, 1), 21u + 12);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0, 2), 21u + 20);
  EXPECT_EQ(rig.at(Cmd::kRead, 0, 2), 41u + 5);  // C
  EXPECT_EQ(rig.channel().stats(0).row_hits, 0u);
  EXPECT_EQ(rig.channel().stats(0).activates, 3u);
  EXPECT_EQ(rig.channel().stats(0).precharges, 2u);
}

// Write queue of 4, drain from 3 down to 1. Eight reads (bank 0) and three writes
// (bank 1) arrive together: the drain writes two (WR 4, 7), reads take over (RD 13
// .. 34, every tCCDL), and the last write waits until no read is left (tRTW: 43).
TEST(DramRules, WritesDrainBetweenWatermarks) {
  DramSpec spec = test_spec();
  spec.write_queue = 4;
  spec.write_high_watermark = 3;
  spec.write_low_watermark = 1;
  Rig rig(spec);
  for (int i = 0; i < 8; ++i) rig.push(read(0, 1));
  for (int i = 0; i < 3; ++i) rig.push(write(1, 1));
  EXPECT_EQ(rig.channel().queued_writes(), 3u);
  EXPECT_TRUE(rig.channel().can_accept(true));
  rig.run_to(80);
  EXPECT_EQ(rig.cycles(Cmd::kWrite), (std::vector<uint64_t>{4, 7, 34 + 9}));
  const std::vector<uint64_t> reads = rig.cycles(Cmd::kRead);
  ASSERT_EQ(reads.size(), 8u);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0), 8u);  // the read mode starts when 1 write is left
  EXPECT_EQ(reads.front(), 13u);
  EXPECT_EQ(reads.back(), 13u + 7 * 3);
  EXPECT_TRUE(rig.channel().idle());
}

// Below the high watermark, writes wait while reads are queued.
TEST(DramRules, WritesBelowHighWatermarkWaitForReads) {
  DramSpec spec = test_spec();
  spec.write_queue = 4;
  spec.write_high_watermark = 3;
  spec.write_low_watermark = 1;
  Rig rig(spec);
  rig.push(write(1, 1));
  rig.push(read(0, 1));
  rig.push(read(0, 1));
  rig.run_to(40);
  EXPECT_EQ(rig.cycles(Cmd::kRead), (std::vector<uint64_t>{6, 9}));
  EXPECT_EQ(rig.at(Cmd::kActivate, 1), 10u);   // the drain starts once no read waits
  EXPECT_EQ(rig.at(Cmd::kWrite, 1), 9u + 9);   // tRTW after the last RD
}

// --- Page policy and return queue -------------------------------------------

// Closed page: RDA at 6 precharges at 13 (tRAS); the second access to the same row
// activates again at 21 (tRC), where the open policy would hit at 9.
TEST(DramRules, ClosedPagePolicyPrechargesAfterEachAccess) {
  DramSpec spec = test_spec();
  spec.page_policy = PagePolicy::kClosed;
  Rig rig(spec);
  rig.push(read(0, 1, 1));
  rig.push(read(0, 1, 1));
  rig.run_to(50);
  EXPECT_EQ(rig.cycles(Cmd::kReadAutoPrecharge), (std::vector<uint64_t>{6, 26}));
  EXPECT_EQ(rig.cycles(Cmd::kActivate), (std::vector<uint64_t>{1, 21}));
  const DramChannelStats& s = rig.channel().stats(1);
  EXPECT_EQ(s.precharges, 2u);
  EXPECT_EQ(s.row_hits, 0u);

  spec.page_policy = PagePolicy::kOpen;
  Rig open(spec);
  open.push(read(0, 1, 1));
  open.push(read(0, 1, 1));
  open.run_to(50);
  EXPECT_EQ(open.cycles(Cmd::kRead), (std::vector<uint64_t>{6, 9}));
  EXPECT_EQ(open.channel().stats(1).precharges, 0u);
  EXPECT_EQ(open.channel().stats(1).row_hits, 1u);
}

// Return queue of 2: two reads issue (6, 9); the rest wait until a reply is taken.
TEST(DramRules, FullReturnQueueStopsReads) {
  DramSpec spec = test_spec();
  spec.return_queue = 2;
  Rig rig(spec, /*take_replies=*/false);
  for (int i = 0; i < 4; ++i) rig.push(read(0, 1));
  rig.run_to(40);
  EXPECT_EQ(rig.cycles(Cmd::kRead), (std::vector<uint64_t>{6, 9}));
  ASSERT_TRUE(rig.channel().has_reply());
  rig.channel().pop_reply();
  rig.run_to(60);
  EXPECT_EQ(rig.cycles(Cmd::kRead), (std::vector<uint64_t>{6, 9, 41}));
  EXPECT_FALSE(rig.channel().idle());
}

// --- Refresh -------------------------------------------------------------------

// All-bank refresh every 50 cycles for 10: at 50 bank 0 is precharged, REF at 56
// (tRP), and a read to bank 1 arriving at 51 waits until 66. At 100 the open bank 1
// is precharged again and REF follows at 106.
TEST(DramRules, AllBankRefreshClosesAndBlocksEveryBank) {
  DramSpec spec = test_spec();
  spec.tREFI = 50;
  spec.tRFC = 10;
  Rig rig(spec);
  rig.push(read(0, 1));
  rig.run_to(51);
  rig.push(read(1, 1));
  rig.run_to(120);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0), 50u);
  EXPECT_EQ(rig.at(Cmd::kRefresh, DramCommand::kAllBanks, 0), 56u);
  EXPECT_EQ(rig.at(Cmd::kActivate, 1), 56u + 10);
  EXPECT_EQ(rig.at(Cmd::kRead, 1), 66u + 5);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 1), 100u);
  EXPECT_EQ(rig.at(Cmd::kRefresh, DramCommand::kAllBanks, 1), 106u);
  EXPECT_EQ(rig.channel().stats(0).refreshes, 2u);
  EXPECT_TRUE(rig.channel().idle());  // a refresh alone does not count
}

// Per-bank refresh, tREFI 40 over 4 banks: one bank every 10 cycles, each blocked
// for 8. Bank 0 refreshes at 10, so its read waits until 18 while bank 2 activates
// at 11; bank 1 (closed) refreshes on time at 20; bank 2 (open) is precharged at 30
// and refreshed at 36 (tRP).
TEST(DramRules, PerBankRefreshRotatesAndBlocksOneBank) {
  DramSpec spec = test_spec();
  spec.type = DramType::kHbm2;
  spec.tREFI = 40;
  spec.tRFC = 8;
  spec.per_bank_refresh = true;
  Rig rig(spec);
  rig.run_to(10);
  rig.push(read(0, 1));
  rig.push(read(2, 1));
  rig.run_to(60);
  EXPECT_EQ(rig.at(Cmd::kRefresh, 0, 0), 10u);
  EXPECT_EQ(rig.at(Cmd::kActivate, 2), 11u);
  EXPECT_EQ(rig.at(Cmd::kActivate, 0), 10u + 8);
  EXPECT_EQ(rig.at(Cmd::kRefresh, 1), 20u);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 2), 30u);
  EXPECT_EQ(rig.at(Cmd::kRefresh, 2), 36u);
  EXPECT_EQ(rig.at(Cmd::kRefresh, 3), 40u);
  EXPECT_EQ(rig.at(Cmd::kPrecharge, 0), 50u);
  EXPECT_EQ(rig.at(Cmd::kRefresh, 0, 1), 56u);
  EXPECT_EQ(rig.channel().stats(0).refreshes, 6u);
}

// dram.tREFI = 0 (either refresh switch): no refresh is ever owed, even with a
// tRFC that would block a bank; a read stream runs as without refresh, and the
// idle channel has no next event however long it ran.
TEST(DramRules, NoRefreshWhenTrefiIsZero) {
  for (const bool per_bank : {false, true}) {
    SCOPED_TRACE(per_bank);
    DramSpec spec = test_spec();
    spec.tREFI = 0;
    spec.tRFC = 10;
    spec.per_bank_refresh = per_bank;
    Rig rig(spec);
    EXPECT_EQ(rig.channel().next_event(0), kNever);
    for (uint32_t i = 0; i < 40; ++i) {
      rig.push(read(i % 4, 1 + i / 8));
      rig.run_to(rig.now() + 25);
    }
    rig.run_to(2000);
    EXPECT_EQ(rig.count(Cmd::kRefresh), 0u);
    EXPECT_EQ(rig.channel().stats(0).refreshes, 0u);
    EXPECT_EQ(rig.reply_cycles().size(), 40u);
    // Read i arrives at 25 i + 1 and opens its row (first of a row: ACT then RD
    // tRCD later) or hits it, unhindered by any refresh.
    EXPECT_EQ(rig.at(Cmd::kActivate, 0), 1u);
    EXPECT_EQ(rig.at(Cmd::kRead, 0, 1), 25u * 4 + 1);
    ASSERT_TRUE(rig.channel().idle());
    EXPECT_EQ(rig.channel().next_event(rig.now()), kNever);
  }
}

// All-bank refresh every tREFI = 50 for tRFC = 10 on an idle channel: REF at 50,
// 100, 150, 200; a read to any bank arriving at 51 (during the first REF) cannot
// activate before 50 + tRFC.
TEST(DramRules, AllBankRefreshEveryTrefiBlocksEveryBankForTrfc) {
  DramSpec spec = test_spec();
  spec.tREFI = 50;
  spec.tRFC = 10;
  {
    Rig idle(spec);
    idle.run_to(220);
    EXPECT_EQ(idle.cycles(Cmd::kRefresh), (std::vector<uint64_t>{50, 100, 150, 200}));
    EXPECT_EQ(idle.at(Cmd::kRefresh, DramCommand::kAllBanks, 3), 200u);
  }
  for (uint32_t b = 0; b < spec.banks; ++b) {
    SCOPED_TRACE(b);
    Rig rig(spec);
    rig.run_to(50);
    rig.push(read(b, 1));
    rig.run_to(99);
    EXPECT_EQ(rig.at(Cmd::kRefresh, DramCommand::kAllBanks), 50u);
    EXPECT_EQ(rig.at(Cmd::kActivate, b), 50u + 10);
    EXPECT_EQ(rig.at(Cmd::kRead, b), 60u + 5);
  }
}

// Per-bank refresh, tREFI 42 over 4 banks: one REF every 42 / 4 = 10 cycles
// (rounded down), to banks 0, 1, 2, 3, 0, ... in turn on an idle channel.
TEST(DramRules, PerBankRefreshRotatesOneBankEveryTrefiOverBanks) {
  DramSpec spec = test_spec();
  spec.type = DramType::kHbm2;
  spec.tREFI = 42;
  spec.tRFC = 8;
  spec.per_bank_refresh = true;
  Rig rig(spec);
  rig.run_to(125);
  std::vector<uint64_t> expected;
  for (uint64_t k = 1; k <= 12; ++k) expected.push_back(10 * k);
  EXPECT_EQ(rig.cycles(Cmd::kRefresh), expected);
  for (uint32_t k = 0; k < 12; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(rig.at(Cmd::kRefresh, k % 4, k / 4), 10u * (k + 1));
  }
  EXPECT_EQ(rig.channel().stats(0).refreshes, 12u);
}

// Fast-forwarding by next_event() changes nothing, under each refresh policy:
// a channel cycled only at the cycles next_event() names (and when a request
// arrives) issues the same commands at the same cycles, and shows the same
// replies, as one cycled every cycle.
TEST(DramRules, FastForwardByNextEventMatchesEveryCycleForEachRefresh) {
  struct Arrival {
    uint64_t cycle;
    DramRequest request;
  };
  const std::vector<Arrival> arrivals = {
      {0, read(0, 1)},   {3, read(1, 2)},   {3, write(2, 1)}, {120, read(3, 4)},
      {121, read(0, 2)}, {333, write(1, 1)}, {334, read(1, 1)}, {700, read(2, 7)},
  };
  constexpr uint64_t kEnd = 1200;
  for (const int refresh : {0, 1, 2}) {
    SCOPED_TRACE(refresh);
    DramSpec spec = test_spec();
    spec.tREFI = refresh == 0 ? 0 : 160;
    spec.tRFC = refresh == 0 ? 0 : 12;
    spec.per_bank_refresh = refresh == 2;
    if (refresh == 2) spec.type = DramType::kHbm2;

    Rig every(spec);
    for (const Arrival& a : arrivals) {
      every.run_to(a.cycle);
      every.push(a.request);
    }
    every.run_to(kEnd);

    DramChannel skipping(0, spec);
    std::vector<DramCommand> log;
    skipping.set_command_log(&log);
    std::vector<uint64_t> replies;
    size_t visits = 0;
    size_t next_arrival = 0;
    uint64_t now = 0;
    while (true) {
      while (next_arrival < arrivals.size() && arrivals[next_arrival].cycle == now)
        skipping.push(arrivals[next_arrival++].request, now);
      uint64_t next = skipping.next_event(now);
      if (next_arrival < arrivals.size()) next = std::min(next, arrivals[next_arrival].cycle);
      if (next > kEnd) break;
      ASSERT_GT(next, now);
      now = next;
      skipping.cycle(now);
      ++visits;
      while (skipping.has_reply()) {
        replies.push_back(now);
        skipping.pop_reply();
      }
    }
    ASSERT_FALSE(log.empty());
    for (const Cmd type : {Cmd::kActivate, Cmd::kPrecharge, Cmd::kRead, Cmd::kWrite, Cmd::kRefresh}) {
      std::vector<uint64_t> skipped;
      for (const DramCommand& c : log)
        if (c.type == type) skipped.push_back(c.cycle);
      EXPECT_EQ(skipped, every.cycles(type)) << dram_command_name(type);
    }
    EXPECT_EQ(replies, every.reply_cycles());
    EXPECT_LT(visits, kEnd / 2);  // it did skip
    EXPECT_EQ(skipping.stats(0).refreshes, every.channel().stats(0).refreshes);
  }
}

// --- Spec validation ----------------------------------------------------------

TEST(DramRules, WriteWatermarksAreValidated) {
  MemorySpec m;
  m.dram.write_queue = 8;
  m.dram.write_high_watermark = 6;
  m.dram.write_low_watermark = 2;
  EXPECT_NO_THROW(m.validate());
  m.dram.write_high_watermark = 9;
  EXPECT_THROW(m.validate(), std::invalid_argument);
  m.dram.write_high_watermark = 6;
  m.dram.write_low_watermark = 6;
  EXPECT_THROW(m.validate(), std::invalid_argument);
  m.dram.write_queue = 0;  // no separate write queue: the watermarks are unused
  EXPECT_NO_THROW(m.validate());
  m.dram.burst_length = 0;
  EXPECT_THROW(m.validate(), std::invalid_argument);
  m.dram.burst_length = 2;
  m.dram.bank_groups = 3;
  EXPECT_THROW(m.validate(), std::invalid_argument);
}

// A channel built from an unvalidated spec refuses what its bank-group mask
// cannot serve: banks not a power of two (bank groups then not one either).
TEST(DramRules, ChannelRefusesBanksThatAreNotAPowerOfTwo) {
  DramSpec s;
  s.banks = 6;
  s.bank_groups = 3;
  EXPECT_THROW(DramChannel(0, s), std::invalid_argument);
  s.banks = 8;
  s.bank_groups = 4;
  EXPECT_NO_THROW(DramChannel(0, s));
}


// --- Every rule at once, on random traffic ---------------------------------------

// Replays a command trace and checks each timing rule independently of the
// channel's own bookkeeping (open page policy).
void check_trace(const DramSpec& s, const std::vector<DramCommand>& trace, uint32_t bus) {
  struct BankTimes {
    bool open = false;
    uint64_t act = 0, pre = 0, last_read = 0, last_write_data_end = 0, refresh_end = 0;
    bool acted = false, read = false, wrote = false, precharged = false;
  };
  std::vector<BankTimes> banks(s.banks);
  std::vector<uint64_t> group_column(s.bank_groups, 0);
  std::vector<bool> group_used(s.bank_groups, false);
  uint64_t last_act = 0, last_column = 0, last_read = 0, write_data_end = 0, bus_free = 0;
  bool any_act = false, any_column = false, any_read = false, any_write = false;
  uint64_t cycle = UINT64_MAX;
  int row_commands = 0, column_commands = 0;
  for (const DramCommand& c : trace) {
    if (c.cycle != cycle) {
      cycle = c.cycle;
      row_commands = column_commands = 0;
    }
    const bool is_column = c.type == Cmd::kRead || c.type == Cmd::kWrite;
    (is_column ? column_commands : row_commands)++;
    if (s.dual_command_bus) {
      ASSERT_LE(row_commands, 1) << c.cycle;
      ASSERT_LE(column_commands, 1) << c.cycle;
    } else {
      ASSERT_LE(row_commands + column_commands, 1) << c.cycle;
    }
    if (c.type == Cmd::kRefresh) {
      for (uint32_t b = 0; b < s.banks; ++b) {
        if (c.bank != DramCommand::kAllBanks && c.bank != b) continue;
        ASSERT_FALSE(banks[b].open) << c.cycle;
        if (banks[b].precharged) {
          ASSERT_GE(c.cycle, banks[b].pre + s.tRP);
        }
        banks[b].refresh_end = c.cycle + s.tRFC;
      }
      continue;
    }
    BankTimes& b = banks[c.bank];
    const uint32_t g = c.bank % s.bank_groups;
    switch (c.type) {
      case Cmd::kActivate:
        ASSERT_FALSE(b.open) << c.cycle;
        if (any_act) {
          ASSERT_GE(c.cycle, last_act + s.tRRD) << c.cycle;
        }
        if (b.acted) {
          ASSERT_GE(c.cycle, b.act + s.tRC) << c.cycle;
        }
        if (b.precharged) {
          ASSERT_GE(c.cycle, b.pre + s.tRP) << c.cycle;
        }
        ASSERT_GE(c.cycle, b.refresh_end) << c.cycle;
        b.open = true;
        b.acted = true;
        b.act = last_act = c.cycle;
        any_act = true;
        break;
      case Cmd::kPrecharge:
        ASSERT_TRUE(b.open) << c.cycle;
        ASSERT_GE(c.cycle, b.act + s.tRAS) << c.cycle;
        if (b.read) {
          ASSERT_GE(c.cycle, b.last_read + s.tRTPL) << c.cycle;
        }
        if (b.wrote) {
          ASSERT_GE(c.cycle, b.last_write_data_end + s.tWR) << c.cycle;
        }
        b.open = false;
        b.precharged = true;
        b.pre = c.cycle;
        break;
      case Cmd::kRead:
      case Cmd::kWrite: {
        const bool rd = c.type == Cmd::kRead;
        ASSERT_TRUE(b.open) << c.cycle;
        ASSERT_GE(c.cycle, b.act + (rd ? s.tRCD : s.tRCDWR)) << c.cycle;
        if (any_column) {
          ASSERT_GE(c.cycle, last_column + s.tCCD) << c.cycle;
        }
        if (group_used[g]) {
          ASSERT_GE(c.cycle, group_column[g] + s.tCCDL) << c.cycle;
        }
        if (rd && any_write) {
          ASSERT_GE(c.cycle, write_data_end + s.tWTR) << c.cycle;
        }
        if (!rd && any_read) {
          ASSERT_GE(c.cycle, last_read + s.tRTW) << c.cycle;
        }
        const uint64_t start = c.cycle + (rd ? s.tCL : s.tWL);
        ASSERT_GE(start, bus_free) << c.cycle;  // bursts never overlap
        bus_free = start + bus;
        last_column = group_column[g] = c.cycle;
        group_used[g] = any_column = true;
        if (rd) {
          b.read = any_read = true;
          b.last_read = last_read = c.cycle;
        } else {
          b.wrote = any_write = true;
          b.last_write_data_end = write_data_end = start + bus;
        }
        break;
      }
      default:
        FAIL() << "unexpected command";
    }
  }
}

// Random reads and writes over banks and a few rows, under each scheduler, bus and
// refresh mode: every read replies once, in completion order, and the trace obeys
// every timing rule.
TEST(DramRules, RandomTrafficObeysEveryRule) {
  for (int variant = 0; variant < 8; ++variant) {
    SCOPED_TRACE(variant);
    DramSpec spec = test_spec();
    spec.banks = 8;
    spec.bank_groups = 4;
    spec.scheduler = variant & 1 ? DramScheduler::kFcfs : DramScheduler::kFrFcfs;
    spec.dual_command_bus = (variant & 2) != 0;
    spec.tREFI = 400;
    spec.tRFC = 30;
    spec.per_bank_refresh = (variant & 4) != 0;
    if (variant >= 6) {
      spec.write_queue = 8;
      spec.write_high_watermark = 6;
      spec.write_low_watermark = 2;
    }
    Rig rig(spec);
    std::vector<DramCommand> trace;
    rig.channel().set_command_log(&trace);
    uint64_t state = 12345 + variant;
    auto next = [&state] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return uint32_t(state >> 33);
    };
    uint32_t reads = 0, sent = 0;
    while (sent < 600 || !rig.channel().idle()) {
      ASSERT_LT(rig.now(), 200000u) << "stuck";
      if (sent < 600 && next() % 3 == 0) {
        DramRequest r = next() % 4 == 0 ? write(next() % 8, next() % 3) : read(next() % 8, next() % 3);
        if (rig.channel().can_accept(r.write)) {
          r.column = sent;
          rig.push(r);
          reads += r.write ? 0 : 1;
          ++sent;
        }
      }
      rig.run_to(rig.now() + 1);
    }
    EXPECT_EQ(rig.reply_cycles().size(), reads);
    uint64_t read_sectors = 0, write_sectors = 0;
    read_sectors = rig.channel().stats(0).read_sectors;
    write_sectors = rig.channel().stats(0).write_sectors;
    EXPECT_EQ(read_sectors + write_sectors, 600u);
    check_trace(spec, trace, rig.channel().bus_cycles());
  }
}

// An idle channel's next event is its next refresh (or never); with only a read in
// flight, the cycle its reply completes.
TEST(DramRules, NextEventSkipsQuietCycles) {
  Rig quiet(test_spec());
  EXPECT_EQ(quiet.channel().next_event(0), kNever);
  quiet.push(read(0, 1));
  EXPECT_EQ(quiet.channel().next_event(0), 1u);
  quiet.run_to(6);  // RD at 6, nothing left queued
  EXPECT_EQ(quiet.channel().next_event(6), 6u + 7 + 1);

  DramSpec spec = test_spec();
  spec.tREFI = 50;
  spec.tRFC = 10;
  Rig refreshing(spec);
  EXPECT_EQ(refreshing.channel().next_event(0), 50u);
  EXPECT_TRUE(refreshing.channel().idle());
  refreshing.run_to(50);  // REF at 50: the next is due at 100
  EXPECT_EQ(refreshing.channel().next_event(50), 100u);

  spec.tREFI = 40;
  spec.per_bank_refresh = true;  // one bank every 40 / 4 cycles
  Rig per_bank(spec);
  EXPECT_EQ(per_bank.channel().next_event(0), 10u);
  per_bank.run_to(10);
  EXPECT_EQ(per_bank.channel().next_event(10), 20u);
}


// --- Pinned behaviour --------------------------------------------------------------

// FNV-1a over 64-bit words: a digest of everything a channel did.
struct Digest {
  uint64_t h = 1469598103934665603ull;
  void add(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
};

// The channel configuration of variant v of the pinned stream: every combination of
// scheduler, command bus, refresh mode (none, all-bank, per-bank), write queue and
// page policy, on 8 banks in 4 groups with a small return queue.
DramSpec pinned_spec(int v) {
  DramSpec s = test_spec();
  s.banks = 8;
  s.bank_groups = 4;
  s.scheduler = v & 1 ? DramScheduler::kFcfs : DramScheduler::kFrFcfs;
  s.dual_command_bus = (v & 2) != 0;
  const int refresh = (v >> 2) % 3;
  s.tREFI = refresh == 0 ? 0 : 300;
  s.tRFC = refresh == 0 ? 0 : 25;
  s.per_bank_refresh = refresh == 2;
  if ((v / 12) & 1) {
    s.write_queue = 12;
    s.write_high_watermark = 9;
    s.write_low_watermark = 3;
  }
  s.page_policy = (v / 24) & 1 ? PagePolicy::kClosed : PagePolicy::kOpen;
  s.sched_queue = 24;
  s.return_queue = 4;
  return s;
}

constexpr int kPinnedVariants = 48;

// Digest of the command trace, reply order and cycles, and statistics of one
// variant under a long pseudo-random stream: bursts of pushes with row locality,
// idle gaps longer than a refresh interval, three statistics slots, and a reply
// taker that sometimes stalls (so the return queue fills).
uint64_t pinned_digest(int v, size_t* commands = nullptr) {
  const DramSpec spec = pinned_spec(v);
  DramChannel channel(0, spec);
  std::vector<DramCommand> trace;
  channel.set_command_log(&trace);
  uint64_t state = 0x9e3779b97f4a7c15ull + uint64_t(v);
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 33);
  };
  Digest d;
  std::vector<uint32_t> last_row(spec.banks, 0);
  constexpr uint32_t kRequests = 4000;
  uint32_t sent = 0;
  uint64_t now = 0;
  uint64_t gap_until = 0;
  uint32_t burst_rate = 2;  // push attempts: one in burst_rate cycles
  while (sent < kRequests || !channel.idle()) {
    if (now > 2000000) ADD_FAILURE() << "stuck";
    if (now > 2000000) break;
    ++now;
    if (sent < kRequests && now >= gap_until) {
      if (next() % 200 == 0) {
        gap_until = now + next() % 700;  // idle gap (may span refreshes)
        burst_rate = 1 + next() % 4;
      } else if (next() % burst_rate == 0) {
        const uint32_t bank = next() % spec.banks;
        const uint32_t row = next() % 3 == 0 ? next() % 5 : last_row[bank];
        last_row[bank] = row;
        DramRequest r = next() % 3 == 0 ? write(bank, row, uint8_t(next() % 3)) : read(bank, row, uint8_t(next() % 3));
        r.column = sent;
        r.addr = (uint64_t(sent) << 8) | r.addr;
        if (channel.can_accept(r.write)) {
          channel.push(r, now - 1);  // pushed at the end of the previous cycle
          ++sent;
        }
      }
    }
    channel.cycle(now);
    if (next() % 5 != 0) {  // the taker stalls one cycle in five
      while (channel.has_reply()) {
        d.add(now);
        d.add(channel.reply().addr);
        channel.pop_reply();
      }
    }
  }
  for (const DramCommand& c : trace) {
    d.add(c.cycle);
    d.add(uint64_t(c.type) << 32 | c.bank);
    d.add(c.row);
  }
  for (uint32_t slot = 0; slot < 3; ++slot) {
    const DramChannelStats& s = channel.stats(slot);
    for (uint64_t x : {s.read_sectors, s.write_sectors, s.activates, s.precharges,
                       s.row_hits, s.refreshes, s.data_bus_cycles})
      d.add(x);
  }
  d.add(now);
  if (commands != nullptr) *commands = trace.size();
  return d.h;
}

// Every command at the same cycle, every reply in the same order at the same cycle,
// the same statistics. The expected digests were computed once from the reference
// implementation (the straightforward scan of the whole queue every cycle) and are
// hard-coded on purpose: they pin the channel's exact behaviour so that faster
// scheduling bookkeeping can be checked to change nothing.
TEST(DramRules, PinnedRandomStreamIsBitIdentical) {
  constexpr uint64_t kExpected[kPinnedVariants] = {
      0x445b09c61ddbf3edull, 0x5d83eebe95f6298bull, 0xc7bcfc34e2ea31a4ull,
      0xee9d93cb430e3c9ull, 0x3ce69bb22b49b441ull, 0x393b2733cdccb375ull,
      0xd1acb5dc49ab688ull, 0x5667dceace9a11e4ull, 0x459f425ef154fadeull,
      0xe30347ad84656b26ull, 0x412276b0a2cc3a2eull, 0x74580c6d3a121b49ull,
      0xf0583e418739cd3full, 0x192549d8a5341ea1ull, 0x67feeb51ceaee437ull,
      0xcbbaeb14664cf5f9ull, 0x3a47089c2cb50befull, 0x28653a83eb86f138ull,
      0x1250fe0680ad51a9ull, 0x1096e1fb4b65acaaull, 0x22b7908117053b33ull,
      0xe858cbf312bc8a9eull, 0xfc502c05d41988f9ull, 0xcf81b412cb12c113ull,
      0xa968419b476c647aull, 0x2749f1fa2b960cf4ull, 0x5054d5c74bc67656ull,
      0xc29e2ad33644f34cull, 0x6795e7944356cfe8ull, 0x6eda85e925651c2cull,
      0xa6ce4b287fdfbebfull, 0xd13789a4f8f01ffcull, 0x40430f634e533bull,
      0x36fd1941db1d27fcull, 0x150d9b6a67ae98abull, 0x26213aed3cf77412ull,
      0xc7769201bcd8ab8eull, 0xa5c339b0b1d32b66ull, 0xfb3021f4b0860672ull,
      0xffdf06758bbd745full, 0xbc190c7605194f4cull, 0x1baafbbc5a502177ull,
      0x6c3bb3117264f034ull, 0x1878de6ff87a7915ull, 0x75a9f50a483f3ac2ull,
      0x1891243b35333a11ull, 0x84f1cb38d48ef6deull, 0x308b034fca4ff9cbull,
  };
  for (int v = 0; v < kPinnedVariants; ++v) {
    size_t commands = 0;
    const uint64_t got = pinned_digest(v, &commands);
    EXPECT_GT(commands, 4000u) << v;  // at least one per request
    EXPECT_EQ(got, kExpected[v]) << "variant " << v << " digest 0x" << std::hex << got;
  }
}

}  // namespace
}  // namespace lockstep
