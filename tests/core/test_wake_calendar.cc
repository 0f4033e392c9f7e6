// WakeCalendar (core/abstract/wake_calendar.h) against a plain list of
// (cycle, warp): the same warps come due in the same cycles, near (the
// 64-cycle wheel) and far (the heap), over jumps in time of any length.
#include "core/abstract/wake_calendar.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace lockstep {
namespace {

struct Entry {
  uint32_t index;
  uint64_t cycle;
};

// What the calendar must give: everything due by `now`, each warp once.
uint64_t take_due_reference(std::vector<Entry>& list, uint64_t now) {
  uint64_t due = 0;
  for (size_t i = 0; i < list.size();) {
    if (list[i].cycle <= now) {
      due |= uint64_t(1) << list[i].index;
      list[i] = list.back();
      list.pop_back();
    } else {
      ++i;
    }
  }
  return due;
}

uint64_t earliest_reference(const std::vector<Entry>& list) {
  uint64_t first = UINT64_MAX;
  for (const Entry& e : list) first = std::min(first, e.cycle);
  return first;
}

TEST(WakeCalendar, GivesEveryWarpInTheCycleItIsDueNearAndFar) {
  WakeCalendar calendar;
  EXPECT_EQ(calendar.earliest(), UINT64_MAX);
  calendar.add(3, 0, 0);     // due at once
  calendar.add(5, 63, 0);    // the wheel's last cycle
  calendar.add(7, 64, 0);    // beyond the wheel: the heap
  calendar.add(9, 1000, 0);
  EXPECT_EQ(calendar.earliest(), 0u);
  EXPECT_EQ(calendar.take_due(0), uint64_t(1) << 3);
  EXPECT_EQ(calendar.earliest(), 63u);
  EXPECT_EQ(calendar.take_due(62), 0u);
  EXPECT_EQ(calendar.take_due(64), (uint64_t(1) << 5) | (uint64_t(1) << 7));
  EXPECT_EQ(calendar.earliest(), 1000u);
  EXPECT_EQ(calendar.take_due(5000), uint64_t(1) << 9);
  EXPECT_EQ(calendar.earliest(), UINT64_MAX);
}

TEST(WakeCalendar, AWarpAddedForACycleAlreadyTakenComesOutNextTime) {
  WakeCalendar calendar;
  calendar.add(1, 12, 10);
  EXPECT_EQ(calendar.take_due(10), 0u);
  calendar.add(2, 10, 10);  // cycle 10 was taken: due at 11
  EXPECT_EQ(calendar.earliest(), 11u);
  EXPECT_EQ(calendar.take_due(11), uint64_t(1) << 2);
  EXPECT_EQ(calendar.take_due(12), uint64_t(1) << 1);
}

TEST(WakeCalendar, AgreesWithAPlainListOverRandomWaitsAndJumps) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    WakeCalendar calendar;
    std::vector<Entry> list;
    uint64_t now = 0;
    uint64_t waiting = 0;  // warps in the calendar (each at most once, as in the SM)
    bool taken = false;    // take_due(now) called: cycles up to now are past
    for (int step = 0; step < 2000; ++step) {
      // Add a few warps that are not waiting, with short or long waits.
      for (int k = 0; k < 3; ++k) {
        const uint32_t index = uint32_t(rng() % 64);
        if (waiting >> index & 1) continue;
        const uint64_t wait = rng() % 4 == 0 ? rng() % 600 : rng() % 70;
        calendar.add(index, now + wait, now);
        // A cycle already taken means the next one.
        list.push_back({index, taken && wait == 0 ? now + 1 : now + wait});
        waiting |= uint64_t(1) << index;
      }
      ASSERT_EQ(calendar.earliest(), earliest_reference(list)) << "round " << round << " step " << step;
      // Visit the next due cycle, or jump past it (the SM visits at most at the earliest; jumping is the harder case).
      const uint64_t first = earliest_reference(list);
      now = rng() % 2 == 0 && first != UINT64_MAX ? std::max(now, first) : now + rng() % 130;
      const uint64_t due = calendar.take_due(now);
      taken = true;
      ASSERT_EQ(due, take_due_reference(list, now)) << "round " << round << " step " << step << " now " << now;
      waiting &= ~due;
    }
  }
}

}  // namespace
}  // namespace lockstep
