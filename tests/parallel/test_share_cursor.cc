// ShareCursor (parallel/share_cursor.h): the owner claims from the front in
// shrinking chunks, helpers claim single pieces from the back, and every piece
// is claimed exactly once, also with an owner and several helpers racing on
// real threads (run under ThreadSanitizer by the test script).
#include "parallel/share_cursor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace lockstep {
namespace {

TEST(ShareCursor, OwnerTakesEverythingFromTheFrontInShrinkingChunks) {
  ShareCursor cursor;
  cursor.reset(40);
  std::vector<uint32_t> sizes;
  uint32_t next = 0, first = 0, end = 0;
  while (cursor.claim_front(first, end)) {
    EXPECT_EQ(first, next);
    ASSERT_GT(end, first);
    sizes.push_back(end - first);
    next = end;
  }
  EXPECT_EQ(next, 40u);
  ASSERT_GE(sizes.size(), 2u);
  EXPECT_EQ(sizes.front(), 10u);  // a quarter of what is left
  EXPECT_EQ(sizes.back(), 1u);    // one at a time near the end
  for (size_t i = 1; i < sizes.size(); ++i) EXPECT_LE(sizes[i], sizes[i - 1]);
  uint32_t piece = 0;
  EXPECT_FALSE(cursor.claim_back(piece));
}

TEST(ShareCursor, HelpersTakeTheLastPiecesAndTheEndsMeetOnce) {
  ShareCursor cursor;
  cursor.reset(5);
  uint32_t piece = 99;
  ASSERT_TRUE(cursor.claim_back(piece));
  EXPECT_EQ(piece, 4u);
  ASSERT_TRUE(cursor.claim_back(piece));
  EXPECT_EQ(piece, 3u);
  std::vector<bool> seen(5, false);
  seen[4] = seen[3] = true;
  uint32_t first = 0, end = 0;
  while (cursor.claim_front(first, end))
    for (uint32_t i = first; i < end; ++i) {
      ASSERT_LT(i, 3u);
      EXPECT_FALSE(seen[i]);
      seen[i] = true;
    }
  for (bool s : seen) EXPECT_TRUE(s);
  EXPECT_FALSE(cursor.claim_back(piece));
  cursor.reset(0);
  EXPECT_FALSE(cursor.claim_back(piece));
  EXPECT_FALSE(cursor.claim_front(first, end));
}

TEST(ShareCursor, ThreadsRacingClaimEveryPieceExactlyOnce) {
  constexpr uint32_t kPieces = 97, kHelpers = 3, kRounds = 300;
  ShareCursor cursor;
  for (uint32_t round = 0; round < kRounds; ++round) {
    cursor.reset(kPieces);
    std::vector<std::atomic<uint32_t>> claims(kPieces);
    std::atomic<bool> go{false};
    auto owner = [&] {
      while (!go.load(std::memory_order_acquire)) {
      }
      uint32_t first = 0, end = 0;
      while (cursor.claim_front(first, end))
        for (uint32_t i = first; i < end; ++i) claims[i].fetch_add(1, std::memory_order_relaxed);
    };
    auto helper = [&] {
      while (!go.load(std::memory_order_acquire)) {
      }
      for (uint32_t i; cursor.claim_back(i);) claims[i].fetch_add(1, std::memory_order_relaxed);
    };
    std::vector<std::thread> threads;
    threads.emplace_back(owner);
    for (uint32_t h = 0; h < kHelpers; ++h) threads.emplace_back(helper);
    go.store(true, std::memory_order_release);
    for (std::thread& th : threads) th.join();
    for (uint32_t i = 0; i < kPieces; ++i) ASSERT_EQ(claims[i].load(), 1u) << "piece " << i << ", round " << round;
  }
}

}  // namespace
}  // namespace lockstep
