// The SM <-> L2 crossbar (memsys/crossbar.h): timing of one packet, one flit
// per port per cycle, iSLIP grant/accept pointers, back-pressure, wormhole
// packets and per-pair order, all in exact interconnect cycles; and, on random
// traffic, every cycle against a direct transcription of its rules.
#include <gtest/gtest.h>

#include <array>
#include <deque>
#include <random>
#include <stdexcept>
#include <vector>

#include "memsys/crossbar.h"

namespace lockstep {
namespace {

// 8-byte flits: a read request (header only) is 1 flit, a write (header + sector) 5.
IcntSpec spec(uint32_t latency, uint32_t in_buffer = 64, uint32_t out_buffer = 64) {
  IcntSpec s;
  s.flit_bytes = 8;
  s.latency = latency;
  s.in_buffer = in_buffer;
  s.out_buffer = out_buffer;
  return s;
}

MemPacket read(uint32_t token, uint8_t slot = 0) {
  MemPacket p;
  p.addr = 0x1000 + uint64_t(token) * 32;
  p.token = token;
  p.stat_slot = slot;
  p.type = MemPacketType::kRead;
  return p;
}

MemPacket write(uint32_t token, uint8_t slot = 0) {
  MemPacket p = read(token, slot);
  p.type = MemPacketType::kWrite;
  p.byte_mask = 0xffffffffu;
  return p;
}

struct Arrival {
  uint64_t cycle;
  uint32_t output;
  uint32_t token;
  bool operator==(const Arrival&) const = default;
};

// Cycles from `from` until `until` (exclusive); after each cycle every output
// that has a packet pops it, recording the cycle it became visible.
std::vector<Arrival> run(Crossbar& x, uint64_t from, uint64_t until) {
  std::vector<Arrival> seen;
  for (uint64_t t = from; t < until; ++t) {
    x.cycle(t);
    for (uint32_t o = 0; o < x.outputs(); ++o)
      while (x.has_output(o, t)) {
        seen.push_back({t, o, x.output_front(o).token});
        x.pop_output(o);
      }
  }
  return seen;
}

// The rules of memsys/crossbar.h written out directly (per-pair deques, full
// scans of every port each cycle), to check the bookkeeping of the real one.
class ReferenceCrossbar {
 public:
  ReferenceCrossbar(uint32_t inputs, uint32_t outputs, const IcntSpec& spec, bool replies)
      : spec_(spec), replies_(replies), in_(inputs), out_(outputs) {
    for (Input& in : in_) in.voq.resize(outputs);
  }

  uint32_t flits(const MemPacket& p) const { return (p.bytes() + spec_.flit_bytes - 1) / spec_.flit_bytes; }
  bool can_inject(uint32_t input, const MemPacket& p) const {
    return in_[input].flits + flits(p) <= spec_.in_buffer;
  }
  void inject(uint32_t input, uint32_t output, const MemPacket& p, uint64_t now) {
    in_[input].voq[output].push_back({p, now, flits(p)});
    in_[input].flits += flits(p);
  }

  void cycle(uint64_t now) {
    const uint32_t n = uint32_t(in_.size()), m = uint32_t(out_.size());
    // Grant.
    std::vector<std::vector<uint32_t>> granted(n);  // per input: granting outputs
    for (uint32_t o = 0; o < m; ++o) {
      if (out_[o].connected) continue;
      for (uint32_t k = 0; k < n; ++k) {
        const uint32_t i = (out_[o].grant_ptr + k) % n;
        const std::deque<Packet>& q = in_[i].voq[o];
        if (in_[i].connected || q.empty() || q.front().injected > now) continue;
        if (out_[o].flits + q.front().flits <= spec_.out_buffer) granted[i].push_back(o);
        break;
      }
    }
    // Accept.
    for (uint32_t i = 0; i < n; ++i) {
      if (granted[i].empty()) continue;
      uint32_t o = m;
      for (uint32_t k = 0; k < m && o == m; ++k) {
        const uint32_t c = (in_[i].accept_ptr + k) % m;
        for (uint32_t g : granted[i])
          if (g == c) o = c;
      }
      in_[i].connected = true;
      in_[i].output = o;
      in_[i].left = in_[i].voq[o].front().flits;
      out_[o].connected = true;
      out_[o].flits += in_[i].left;
      out_[o].grant_ptr = (i + 1) % n;
      in_[i].accept_ptr = (o + 1) % m;
    }
    // Stalls.
    for (uint32_t i = 0; i < n; ++i) {
      if (in_[i].connected || in_[i].flits == 0) continue;
      for (uint32_t k = 0; k < m; ++k) {
        const std::deque<Packet>& q = in_[i].voq[(in_[i].accept_ptr + k) % m];
        if (q.empty()) continue;
        ++slot(q.front().packet).stall_cycles;
        break;
      }
    }
    // Transfer.
    for (uint32_t i = 0; i < n; ++i) {
      Input& in = in_[i];
      if (!in.connected) continue;
      --in.flits;
      if (--in.left > 0) continue;
      const Packet p = in.voq[in.output].front();
      in.voq[in.output].pop_front();
      CrossbarStats& st = slot(p.packet);
      (replies_ ? st.reply_packets : st.request_packets) += 1;
      (replies_ ? st.reply_flits : st.request_flits) += p.flits;
      out_[in.output].arrived.push_back({p.packet, now + spec_.latency, p.flits});
      out_[in.output].connected = false;
      in.connected = false;
    }
  }

  bool has_output(uint32_t o, uint64_t now) const {
    return !out_[o].arrived.empty() && out_[o].arrived.front().injected <= now;
  }
  const MemPacket& output_front(uint32_t o) const { return out_[o].arrived.front().packet; }
  void pop_output(uint32_t o) {
    out_[o].flits -= out_[o].arrived.front().flits;
    out_[o].arrived.pop_front();
  }
  uint32_t input_flits(uint32_t i) const { return in_[i].flits; }
  uint32_t output_flits(uint32_t o) const { return out_[o].flits; }
  const CrossbarStats& stats(uint32_t s) const { return stats_[s]; }

 private:
  struct Packet {
    MemPacket packet;
    uint64_t injected;  // at an output: the cycle it is visible
    uint32_t flits;
  };
  struct Input {
    std::vector<std::deque<Packet>> voq;
    uint32_t flits = 0, accept_ptr = 0, output = 0, left = 0;
    bool connected = false;
  };
  struct Output {
    std::deque<Packet> arrived;
    uint32_t flits = 0, grant_ptr = 0;
    bool connected = false;
  };
  CrossbarStats& slot(const MemPacket& p) { return stats_[p.stat_slot < kStatSlots ? p.stat_slot : 0]; }

  IcntSpec spec_;
  bool replies_;
  std::vector<Input> in_;
  std::vector<Output> out_;
  std::array<CrossbarStats, kStatSlots> stats_{};
};

TEST(CrossbarTiming, PacketFlitsFollowFromFlitBytes) {
  Crossbar x(1, 1, spec(1));
  EXPECT_EQ(x.flits(read(0)), 1u);   // 8 B
  EXPECT_EQ(x.flits(write(0)), 5u);  // 40 B
  IcntSpec wide = spec(1);
  wide.flit_bytes = 32;
  EXPECT_EQ(Crossbar(1, 1, wide).flits(write(0)), 2u);  // ceil(40 / 32)
}

TEST(CrossbarTiming, SinglePacketArrivesAfterLatencyPlusFlitsMinusOne) {
  Crossbar x(2, 2, spec(3));
  x.inject(0, 1, write(7), 0);
  for (uint64_t t = 0; t < 6; ++t) {
    x.cycle(t);
    EXPECT_FALSE(x.has_output(1, t)) << t;
  }
  x.cycle(6);
  EXPECT_FALSE(x.has_output(1, 6));
  x.cycle(7);
  ASSERT_TRUE(x.has_output(1, 7));  // 3 + 5 - 1
  EXPECT_FALSE(x.has_output(0, 7));
  EXPECT_EQ(x.output_front(1).token, 7u);
  EXPECT_EQ(x.output_front(1).type, MemPacketType::kWrite);
}

TEST(CrossbarTiming, InjectedLaterStartsLater) {
  Crossbar x(1, 1, spec(2));
  run(x, 0, 10);  // idle cycles
  x.inject(0, 0, read(1), 10);
  EXPECT_EQ(run(x, 10, 20), (std::vector<Arrival>{{12, 0, 1}}));  // 10 + 2 + 1 - 1
}

TEST(CrossbarBandwidth, OneOutputTakesOneFlitPerCycle) {
  // Two inputs, three 1-flit reads each, all to output 0: six flits take six cycles.
  Crossbar x(2, 1, spec(1));
  for (uint32_t k = 0; k < 3; ++k) {
    x.inject(0, 0, read(k), 0);
    x.inject(1, 0, read(10 + k), 0);
  }
  const std::vector<Arrival> a = run(x, 0, 20);
  ASSERT_EQ(a.size(), 6u);
  for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(a[k].cycle, 1u + k) << k;
  EXPECT_EQ(a.back().cycle, 6u);  // latency 1 + 6 flits - 1
}

TEST(CrossbarBandwidth, TwoMultiFlitPacketsToOneOutputTakeTheSumOfTheirFlits) {
  Crossbar x(2, 1, spec(1));
  x.inject(0, 0, write(1), 0);
  x.inject(1, 0, write(2), 0);
  // 10 flits through one output: the second packet's last flit crosses in cycle 9.
  EXPECT_EQ(run(x, 0, 20), (std::vector<Arrival>{{5, 0, 1}, {10, 0, 2}}));
}

TEST(CrossbarBandwidth, DifferentOutputsMoveInParallel) {
  Crossbar x(2, 2, spec(1));
  x.inject(0, 0, write(1), 0);
  x.inject(1, 1, write(2), 0);
  EXPECT_EQ(run(x, 0, 20), (std::vector<Arrival>{{5, 0, 1}, {5, 1, 2}}));
}

TEST(CrossbarBandwidth, OneInputSendsOneFlitPerCycle) {
  // One input, packets for two idle outputs: the input serialises them.
  Crossbar x(1, 2, spec(1));
  x.inject(0, 0, write(1), 0);
  x.inject(0, 1, write(2), 0);
  EXPECT_EQ(run(x, 0, 20), (std::vector<Arrival>{{5, 0, 1}, {10, 1, 2}}));
}

TEST(CrossbarArbitration, RoundRobinAlternatesGrants) {
  // Three inputs keep output 0 busy: grants rotate 0, 1, 2, 0, 1, 2, ...
  Crossbar x(3, 1, spec(1));
  for (uint32_t k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < 3; ++i) x.inject(i, 0, read(i * 100 + k), 0);
  const std::vector<Arrival> a = run(x, 0, 20);
  ASSERT_EQ(a.size(), 9u);
  for (uint32_t n = 0; n < 9; ++n) {
    EXPECT_EQ(a[n].cycle, 1u + n);
    EXPECT_EQ(a[n].token, (n % 3) * 100 + n / 3) << n;
  }
}

TEST(CrossbarArbitration, RoundRobinContinuesFromThePointer) {
  // Input 1 won last; when inputs 0 and 1 both ask again, input 0 goes first.
  Crossbar x(2, 1, spec(1));
  x.inject(1, 0, read(1), 0);
  run(x, 0, 3);
  x.inject(1, 0, read(2), 3);
  x.inject(0, 0, read(3), 3);
  EXPECT_EQ(run(x, 3, 10), (std::vector<Arrival>{{4, 0, 3}, {5, 0, 2}}));
}

TEST(CrossbarArbitration, UnacceptedGrantIsLostAndItsPointerStays) {
  // Input 0 holds packets for outputs 0 and 1; input 1 one for output 1. Cycle 0:
  // both outputs grant input 0 (pointers at 0), which accepts output 0 (its
  // pointer); output 1's grant is lost (one iteration) and its pointer stays on
  // input 0, so output 1 grants input 0 again in cycle 1 and input 1 in cycle 2.
  Crossbar x(2, 2, spec(1));
  x.inject(0, 0, read(1), 0);
  x.inject(0, 1, read(2), 0);
  x.inject(1, 1, read(3), 0);
  EXPECT_EQ(run(x, 0, 10), (std::vector<Arrival>{{1, 0, 1}, {2, 1, 2}, {3, 1, 3}}));
}

TEST(CrossbarArbitration, InputAcceptsPerItsOwnPointer) {
  // After accepting output 0 the input's pointer is 1: offered outputs 0 and 1 again,
  // it takes output 1 first.
  Crossbar x(1, 2, spec(1));
  x.inject(0, 0, read(1), 0);
  run(x, 0, 3);
  x.inject(0, 0, read(2), 3);
  x.inject(0, 1, read(3), 3);
  EXPECT_EQ(run(x, 3, 10), (std::vector<Arrival>{{4, 1, 3}, {5, 0, 2}}));
}

TEST(CrossbarBackPressure, FullOutputGrantsNothingUntilPopped) {
  // Output buffer of 10 flits = two writes. Nobody pops: the third waits at the input.
  Crossbar x(1, 1, spec(1, 64, 10));
  for (uint32_t k = 0; k < 4; ++k) x.inject(0, 0, write(k), 0);
  for (uint64_t t = 0; t < 100; ++t) x.cycle(t);
  EXPECT_TRUE(x.has_output(0, 99));
  EXPECT_EQ(x.output_flits(0), 10u);
  EXPECT_EQ(x.input_flits(0), 10u);  // two writes still at the input
  // Connected during cycles 0-9, stalled during cycles 10-99.
  EXPECT_EQ(x.stats(0).stall_cycles, 90u);
  EXPECT_EQ(x.stats(0).request_packets, 2u);

  EXPECT_EQ(x.output_front(0).token, 0u);
  x.pop_output(0);  // five flits free: the third write is granted in cycle 100
  x.cycle(100);
  EXPECT_EQ(x.output_flits(0), 10u);  // the second write plus the third's reservation
  for (uint64_t t = 101; t < 105; ++t) x.cycle(t);
  EXPECT_EQ(x.output_front(0).token, 1u);
  x.pop_output(0);
  EXPECT_FALSE(x.has_output(0, 104));
  x.cycle(105);
  ASSERT_TRUE(x.has_output(0, 105));  // last flit crossed in cycle 104, latency 1
  EXPECT_EQ(x.output_front(0).token, 2u);
}

TEST(CrossbarBackPressure, InputBufferRefusesWhatDoesNotFit) {
  Crossbar x(1, 1, spec(1, 10, 64));
  EXPECT_TRUE(x.can_inject(0, write(0)));
  x.inject(0, 0, write(0), 0);
  x.inject(0, 0, write(1), 0);
  EXPECT_FALSE(x.can_inject(0, read(2)));  // 10 of 10 flits used
  EXPECT_THROW(x.inject(0, 0, read(2), 0), std::logic_error);
  x.cycle(0);                              // one flit leaves the input
  EXPECT_TRUE(x.can_inject(0, read(2)));
  EXPECT_FALSE(x.can_inject(0, write(2)));
  for (uint64_t t = 1; t < 5; ++t) x.cycle(t);  // the first write is out
  EXPECT_TRUE(x.can_inject(0, write(2)));
}

TEST(CrossbarOrdering, MultiFlitPacketsDoNotInterleaveAtAnOutput) {
  // Three 5-flit writes from three inputs to one output: each crosses whole, so
  // they complete 5 cycles apart (interleaved flits would finish in cycles 12-14).
  Crossbar x(3, 1, spec(1));
  for (uint32_t i = 0; i < 3; ++i) x.inject(i, 0, write(i), 0);
  std::vector<Arrival> a;
  for (uint64_t t = 0; t < 30; ++t) {
    x.cycle(t);
    if (x.has_output(0, t)) {
      a.push_back({t, 0, x.output_front(0).token});
      x.pop_output(0);
    }
  }
  EXPECT_EQ(a, (std::vector<Arrival>{{5, 0, 0}, {10, 0, 1}, {15, 0, 2}}));
}

TEST(CrossbarOrdering, PerPairFifo) {
  // Input 0 mixes reads and writes to two outputs; input 1 sends to output 0 too.
  // Each (input, output) pair delivers in injection order.
  Crossbar x(2, 2, spec(2));
  const uint32_t to0[] = {1, 2, 3, 4};
  x.inject(0, 0, write(1), 0);
  x.inject(0, 1, read(50), 0);
  x.inject(0, 0, read(2), 0);
  x.inject(1, 0, read(100), 0);
  x.inject(0, 1, write(51), 0);
  x.inject(0, 0, write(3), 0);
  x.inject(1, 0, write(101), 0);
  x.inject(0, 0, read(4), 0);
  x.inject(1, 0, read(102), 0);
  std::vector<uint32_t> pair00, pair01, pair10;
  for (const Arrival& a : run(x, 0, 100)) {
    if (a.output == 1) pair01.push_back(a.token);
    else if (a.token >= 100) pair10.push_back(a.token);
    else pair00.push_back(a.token);
  }
  EXPECT_EQ(pair00, std::vector<uint32_t>(std::begin(to0), std::end(to0)));
  EXPECT_EQ(pair01, (std::vector<uint32_t>{50, 51}));
  EXPECT_EQ(pair10, (std::vector<uint32_t>{100, 101, 102}));
  EXPECT_TRUE(x.idle());
}

TEST(CrossbarStats, CountsPacketsAndFlitsIntoThePacketsSlot) {
  Crossbar req(2, 1, spec(1));
  req.inject(0, 0, write(1, 3), 0);
  req.inject(1, 0, read(2, 5), 0);
  run(req, 0, 10);
  EXPECT_EQ(req.stats(3).request_packets, 1u);
  EXPECT_EQ(req.stats(3).request_flits, 5u);
  EXPECT_EQ(req.stats(5).request_packets, 1u);
  EXPECT_EQ(req.stats(5).request_flits, 1u);
  EXPECT_EQ(req.stats(5).reply_packets, 0u);
  // Input 1's read waited for the output in cycles 0-4 while the write crossed.
  EXPECT_EQ(req.stats(5).stall_cycles, 5u);
  EXPECT_EQ(req.stats(3).stall_cycles, 0u);
  const CrossbarStats taken = req.take_stats(3);
  EXPECT_EQ(taken.request_flits, 5u);
  EXPECT_EQ(req.stats(3).request_flits, 0u);

  Crossbar rep(1, 1, spec(1), /*replies=*/true);
  rep.inject(0, 0, read(1).reply(), 0);  // a read reply carries the sector: 5 flits
  run(rep, 0, 10);
  EXPECT_EQ(rep.stats(0).reply_packets, 1u);
  EXPECT_EQ(rep.stats(0).reply_flits, 5u);
  EXPECT_EQ(rep.stats(0).request_packets, 0u);
}

TEST(CrossbarIdle, IdleOnlyWhenNothingIsBuffered) {
  Crossbar x(2, 2, spec(1));
  EXPECT_TRUE(x.idle());
  x.cycle(0);  // an idle cycle changes nothing
  EXPECT_TRUE(x.idle());
  x.inject(1, 0, read(1), 1);
  EXPECT_FALSE(x.idle());
  x.cycle(1);
  EXPECT_FALSE(x.idle());  // crossed, waiting in the output buffer
  x.cycle(2);
  ASSERT_TRUE(x.has_output(0, 2));
  x.pop_output(0);
  EXPECT_TRUE(x.idle());
  EXPECT_EQ(x.output_flits(0), 0u);
  EXPECT_EQ(x.input_flits(1), 0u);
}

TEST(CrossbarSpec, RejectsBuffersSmallerThanAPacket) {
  EXPECT_THROW(Crossbar(1, 1, spec(1, 4, 64)), std::invalid_argument);  // a write is 5 flits
  EXPECT_THROW(Crossbar(1, 1, spec(1, 64, 4)), std::invalid_argument);
  EXPECT_THROW(Crossbar(0, 1, spec(1)), std::invalid_argument);
  EXPECT_NO_THROW(Crossbar(1, 1, spec(1, 5, 5)));
}

TEST(CrossbarReference, MatchesTheRulesOnRandomTraffic) {
  // Random shapes (also more than 64 ports a side), packet sizes, buffers that
  // fill, packets injected for later cycles, outputs drained at random: every
  // cycle the crossbar must show what the direct transcription of the rules shows.
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    const auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    const uint32_t n = seed % 4 == 0 ? pick(65, 140) : pick(1, 12), m = seed % 5 == 0 ? pick(65, 130) : pick(1, 12);
    IcntSpec s;
    s.flit_bytes = std::array<uint32_t, 4>{8, 16, 40, 13}[seed % 4];
    s.latency = pick(0, 3);
    const uint32_t largest = (40 + s.flit_bytes - 1) / s.flit_bytes;
    s.in_buffer = largest * pick(1, 6);
    s.out_buffer = largest + pick(0, 8);
    const bool replies = seed % 2 == 1;
    Crossbar x(n, m, s, replies);
    ReferenceCrossbar ref(n, m, s, replies);
    const uint32_t load = pick(1, 3 * n), drain = pick(20, 100);  // per cycle: injection attempts, pop chance %
    uint32_t token = 0;
    for (uint64_t t = 0; t < 400; ++t) {
      for (uint32_t k = t < 300 ? pick(0, load) : 0; k > 0; --k) {
        MemPacket p = pick(0, 1) ? write(token++) : read(token++);
        if (replies) p = p.reply();
        // One kernel's slot only, or any (slots past the last count into slot 0).
        p.stat_slot = uint8_t(seed % 3 == 0 ? 7 : pick(0, kStatSlots + 1));
        const uint32_t i = pick(0, n - 1), o = pick(0, m - 1);
        const uint64_t at = t + (pick(0, 9) == 0 ? pick(1, 4) : 0);
        ASSERT_EQ(x.can_inject(i, p), ref.can_inject(i, p));
        if (!ref.can_inject(i, p)) continue;
        x.inject(i, o, p, at);
        ref.inject(i, o, p, at);
      }
      x.cycle(t);
      ref.cycle(t);
      for (uint32_t o = 0; o < m; ++o) {
        ASSERT_EQ(x.has_output(o, t), ref.has_output(o, t)) << "seed " << seed << " cycle " << t << " output " << o;
        while (ref.has_output(o, t) && pick(1, 100) <= drain) {
          ASSERT_EQ(x.output_front(o).token, ref.output_front(o).token) << "seed " << seed << " cycle " << t;
          x.pop_output(o);
          ref.pop_output(o);
        }
        ASSERT_EQ(x.output_flits(o), ref.output_flits(o)) << "seed " << seed << " cycle " << t;
      }
      for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(x.input_flits(i), ref.input_flits(i)) << "seed " << seed;
      for (uint32_t slot = 0; slot < kStatSlots; ++slot) {
        const CrossbarStats &a = x.stats(slot), &b = ref.stats(slot);
        ASSERT_EQ(a.stall_cycles, b.stall_cycles) << "seed " << seed << " cycle " << t << " slot " << slot;
        ASSERT_EQ(a.request_packets, b.request_packets);
        ASSERT_EQ(a.request_flits, b.request_flits);
        ASSERT_EQ(a.reply_packets, b.reply_packets);
        ASSERT_EQ(a.reply_flits, b.reply_flits);
      }
    }
  }
}

}  // namespace
}  // namespace lockstep
