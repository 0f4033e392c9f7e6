// The watchdog alone: it fires after more than watchdog_cycles without
// progress, never while nothing runs (between kernels), and a step of
// progress starts the count again.
#include <gtest/gtest.h>

#include "parallel/watchdog.h"

namespace lockstep {
namespace {

// Looks at every look of cycles [from, to) with a fixed progress figure; the first cycle it fires at, or 0.
uint64_t first_firing(Watchdog& w, uint64_t from, uint64_t to, uint64_t progress, bool nothing_running) {
  for (uint64_t now = from; now < to; ++now)
    if (w.due(now) && w.look(now, progress, nothing_running)) return now;
  return 0;
}

TEST(WatchdogRules, FiresAfterTheLimitWithoutProgress) {
  constexpr uint64_t kLimit = 5000;
  Watchdog w(kLimit, 0);
  // Progress at the first look (cycle 1023), then none: the first look more
  // than kLimit cycles after it fires.
  EXPECT_EQ(first_firing(w, 0, 1024, 10, false), 0u);
  const uint64_t fired = first_firing(w, 1024, 100000, 10, false);
  EXPECT_GT(fired - 1023, kLimit);
  EXPECT_LE(fired - 1023, kLimit + Watchdog::kEvery);
  EXPECT_EQ((fired + 1) % Watchdog::kEvery, 0u);  // at a look
}

TEST(WatchdogRules, NeverFiresBetweenKernelsOrWhileProgressIsMade) {
  Watchdog w(2000, 0);
  EXPECT_EQ(first_firing(w, 0, 50000, 7, true), 0u) << "nothing running: a launch is due";
  for (uint64_t now = 50000, progress = 7; now < 100000; ++now) {
    if (w.due(now)) {
      EXPECT_EQ(w.look(now, ++progress, false), 0u) << now;
    }
  }
  Watchdog off(0, 0);
  EXPECT_EQ(first_firing(off, 0, 100000, 1, false), 0u) << "watchdog_cycles = 0: never";
}

TEST(WatchdogRules, MessageNamesTheKernelsAndTheFirstStuckWarps) {
  EXPECT_EQ(Watchdog::message(3000, " kernel 1 has 2 blocks dispatched, 1 retired, none waiting;", {}),
            "no progress for 3000 cycles (watchdog, gpu.watchdog_cycles): kernel 1 has 2 blocks dispatched, 1 "
            "retired, none waiting; no warp is resident");
  std::vector<std::string> warps;
  for (char i = '0'; i <= '9'; ++i) warps.push_back(std::string{'w', i});
  const std::string m = Watchdog::message(1, "", warps);
  EXPECT_NE(m.find(" stuck warps:\n  w0\n  w1"), std::string::npos) << m;
  EXPECT_NE(m.find("\n  w7\n  ... and 2 more"), std::string::npos) << m;
  EXPECT_EQ(m.find("w8"), std::string::npos) << m;
}

}  // namespace
}  // namespace lockstep
