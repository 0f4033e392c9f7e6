// StaticTable: one thread interns while others read entries already handed out
// (the conversion pipeline relies on it). Run under TSan by scripts/test.sh.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "frontend/trace/static_table.h"

namespace lockstep {
namespace {

StaticInstruction make(StaticTable& t, uint32_t i) {
  StaticInstruction st;
  st.pc = 16ull * i;
  st.opcode_id = t.intern_opcode(i % 3 ? "FFMA" : "LDG.E.64");
  st.dsts.push_back(RegRef{RegKind::kR, uint16_t(i % 200)});
  st.mem_width = i % 3 ? 0 : 8;
  return st;
}

TEST(StaticTableThreads, ReadersSeeCompleteEntriesWhileOneThreadInterns) {
  StaticTable table;
  constexpr uint32_t kEntries = 20000;  // several pages
  std::atomic<uint32_t> published{0};
  std::thread writer([&] {
    for (uint32_t i = 0; i < kEntries; ++i) {
      const uint32_t id = table.intern(make(table, i));
      ASSERT_EQ(id, i);
      published.store(i + 1, std::memory_order_release);
    }
  });
  std::vector<std::thread> readers;
  std::atomic<uint64_t> checked{0};
  for (int r = 0; r < 3; ++r)
    readers.emplace_back([&] {
      uint32_t seen = 0;
      while (seen < kEntries) {
        const uint32_t n = published.load(std::memory_order_acquire);
        for (; seen < n; ++seen) {
          const StaticInstruction& st = table.inst(seen);
          EXPECT_EQ(st.pc, 16ull * seen);
          EXPECT_EQ(table.opcode(st.opcode_id), seen % 3 ? "FFMA" : "LDG.E.64");
          EXPECT_EQ(st.traits.space, seen % 3 ? MemSpace::kNone : MemSpace::kGlobal);
          checked.fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(checked.load(), 3ull * kEntries);
  EXPECT_EQ(table.size(), kEntries);
}

TEST(StaticTableThreads, InterningTheSameInstructionTwiceGivesOneId) {
  StaticTable t;
  const uint32_t a = t.intern(make(t, 5));
  const uint32_t b = t.intern(make(t, 5));
  EXPECT_EQ(a, b);
  StaticInstruction other = make(t, 5);
  other.immediate = 1;
  other.has_immediate = true;
  EXPECT_NE(t.intern(other), a);  // same PC, different static content
}

}  // namespace
}  // namespace lockstep
