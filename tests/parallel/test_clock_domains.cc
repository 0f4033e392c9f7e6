// Clock domains in exact integer time (parallel/clock_domains.h): memory-side
// edges run in time order up to and including each core edge, simultaneous
// edges in the fixed order interconnect, L2, DRAM.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "parallel/clock_domains.h"

namespace lockstep {
namespace {

std::vector<std::string> edges_until(ClockDomains& c, uint64_t core) {
  std::vector<std::string> out;
  c.memory_edges_until(core, [&](ClockDomain d, uint64_t n) {
    const char* name = d == ClockDomain::kIcnt ? "icnt" : d == ClockDomain::kL2 ? "l2" : "dram";
    out.push_back(std::string(name) + std::to_string(n));
  });
  return out;
}

TEST(ClockDomains, EdgesRunInTimeOrderWithAFixedOrderForTies) {
  ClockSpec s;
  s.core_mhz = 1000;  // edges at 0, 1, 2 ns ...
  s.icnt_mhz = 1000;  // 0, 1, 2 ns
  s.l2_mhz = 2000;    // 0, 0.5, 1, 1.5 ns
  s.dram_mhz = 500;   // 0, 2, 4 ns
  ClockDomains c(s);
  EXPECT_EQ(edges_until(c, 0), (std::vector<std::string>{"icnt0", "l20", "dram0"}));
  EXPECT_EQ(edges_until(c, 1), (std::vector<std::string>{"l21", "icnt1", "l22"}));
  EXPECT_EQ(edges_until(c, 2), (std::vector<std::string>{"l23", "icnt2", "l24", "dram1"}));
  EXPECT_EQ(c.cycles(ClockDomain::kL2), 5u);
}

TEST(ClockDomains, RatiosThatAreNotRoundNumbersStayExact) {
  ClockSpec s;  // QV100: 1132 MHz core, interconnect and L2; 850 MHz DRAM
  ClockDomains c(s);
  uint64_t dram = 0;
  const uint64_t core_cycles = 1132 * 1000;  // one millisecond of core time
  for (uint64_t t = 0; t < core_cycles; ++t)
    c.memory_edges_until(t, [&](ClockDomain d, uint64_t) { dram += d == ClockDomain::kDram; });
  // DRAM edges at n / 850 MHz <= (core_cycles - 1) / 1132 MHz: exactly 850000 of them.
  EXPECT_EQ(dram, 850u * 1000);
  EXPECT_EQ(c.cycles_in(ClockDomain::kDram, 1132), 850u);
  EXPECT_EQ(c.cycles_in(ClockDomain::kDram, 100), 76u);  // 75.09 rounded up
}

// Fast-forward: skipping to core cycle c drops exactly the edges of the
// skipped core cycles; core_cycle_of names the core cycle that runs an edge;
// max_edges_per_core_cycle bounds the edges of a domain in any core cycle.
TEST(ClockDomains, SkippingDropsExactlyTheEdgesOfTheSkippedCycles) {
  ClockSpec s;
  s.core_mhz = 1132;
  s.icnt_mhz = 1500;
  s.l2_mhz = 2264;
  s.dram_mhz = 850;
  ClockDomains every(s), skipping(s);
  std::vector<std::string> kept;
  for (uint64_t t = 0; t < 400; ++t) {
    std::vector<std::string> e = edges_until(every, t);
    if (t < 100 || t >= 250) kept.insert(kept.end(), e.begin(), e.end());
    for (ClockDomain d : {ClockDomain::kIcnt, ClockDomain::kL2, ClockDomain::kDram})
      EXPECT_LE(std::count_if(e.begin(), e.end(), [&](const std::string& n) {
                  return n.rfind(d == ClockDomain::kIcnt ? "icnt" : d == ClockDomain::kL2 ? "l2" : "dram", 0) == 0;
                }),
                every.max_edges_per_core_cycle(d));
  }
  std::vector<std::string> got;
  for (uint64_t t = 0; t < 400; ++t) {
    if (t == 100) {
      skipping.skip_to(250);
      t = 250;
    }
    std::vector<std::string> e = edges_until(skipping, t);
    got.insert(got.end(), e.begin(), e.end());
  }
  EXPECT_EQ(got, kept);
  EXPECT_EQ(every.max_edges_per_core_cycle(ClockDomain::kL2), 2u);
  EXPECT_EQ(every.max_edges_per_core_cycle(ClockDomain::kIcnt), 2u);
  EXPECT_EQ(every.max_edges_per_core_cycle(ClockDomain::kDram), 1u);
  // Edge n of a domain runs in core cycle core_cycle_of(d, n).
  ClockDomains again(s);
  for (uint64_t t = 0; t < 300; ++t)
    again.memory_edges_until(t, [&](ClockDomain d, uint64_t n) { EXPECT_EQ(again.core_cycle_of(d, n), t); });
}

}  // namespace
}  // namespace lockstep
