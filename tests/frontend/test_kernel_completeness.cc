// A kernel's trace is whole: every block of the grid once, every block with
// all its warps, every warp with an EXIT; else the findings name what is
// missing, and the policy makes them an error or warnings.
#include <gtest/gtest.h>

#include "frontend/trace/kernel_completeness.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

class CompletenessTest : public ::testing::Test {
 protected:
  CompletenessTest() {
    kernel_.grid = Dim3{3, 2, 1};
    kernel_.block = Dim3{64, 1, 1};  // 2 warps
    StaticInstruction st;
    st.opcode_id = table_.intern_opcode("FADD");
    fadd_ = table_.intern(st);
    st.opcode_id = table_.intern_opcode("EXIT");
    exit_ = table_.intern(st);
  }
  // A block with warps `warps`, each FADD then (if `exits`) EXIT.
  BlockTrace block(Dim3 id, std::vector<uint32_t> warps = {0, 1}, bool exits = true) const {
    BlockTrace b;
    b.id = id;
    for (uint32_t w : warps) {
      WarpTrace wt;
      wt.warp_id = w;
      wt.insts.push_back(WarpInstruction{fadd_, ~0u, 0});
      if (exits) wt.insts.push_back(WarpInstruction{exit_, ~0u, 0});
      b.warps.push_back(wt);
    }
    return b;
  }
  void add_all_but(KernelCompleteness& c, Dim3 skip) const {
    for (uint32_t y = 0; y < 2; ++y)
      for (uint32_t x = 0; x < 3; ++x)
        if (Dim3{x, y, 0} != skip) c.add(block(Dim3{x, y, 0}), table_);
  }

  KernelInfo kernel_;
  StaticTable table_;
  uint32_t fadd_ = 0, exit_ = 0;
};

TEST_F(CompletenessTest, AWholeKernelHasNoFindingsInAnyOrder) {
  KernelCompleteness c(kernel_, "k.traceg");
  for (uint32_t x : {2u, 0u, 1u})
    for (uint32_t y : {1u, 0u}) c.add(block(Dim3{x, y, 0}, {1, 0}), table_);
  EXPECT_TRUE(c.findings().empty());
}

TEST_F(CompletenessTest, MissingBlocksAreCountedWithTheFirst) {
  KernelCompleteness c(kernel_, "k.traceg");
  add_all_but(c, Dim3{1, 1, 0});
  EXPECT_EQ(c.findings(), std::vector<std::string>{"k.traceg: 1 of 6 thread blocks missing (the first (1,1,0))"});
  KernelCompleteness none(kernel_, "k.traceg");
  EXPECT_EQ(none.findings(), std::vector<std::string>{"k.traceg: 6 of 6 thread blocks missing (the first (0,0,0))"});
}

TEST_F(CompletenessTest, ARepeatedBlockAMissingWarpAndAWarpWithoutExit) {
  KernelCompleteness c(kernel_, "k.traceg");
  add_all_but(c, Dim3{9, 9, 9});
  c.add(block(Dim3{2, 0, 0}), table_);
  c.add(block(Dim3{2, 0, 0}), table_);
  c.add(block(Dim3{1, 0, 0}, {1}), table_);
  c.add(block(Dim3{0, 1, 0}, {0, 1}, false), table_);
  EXPECT_EQ(c.findings(),
            (std::vector<std::string>{"k.traceg: 3 thread block(s) appear more than once (the first (1,0,0))",
                                      "k.traceg: 1 thread block(s) lack warps (the first (1,0,0): 1 of 2 warps, warp 0 missing)",
                                      "k.traceg: 2 warp(s) without EXIT (the first: block (0,1,0) warp 0)"}));
}

TEST_F(CompletenessTest, InstructionsAfterAnExitAreNotACutWarp) {
  KernelCompleteness c(kernel_, "k.traceg");
  add_all_but(c, Dim3{0, 0, 0});
  BlockTrace b = block(Dim3{0, 0, 0});
  for (WarpTrace& w : b.warps) w.insts.push_back(WarpInstruction{fadd_, ~0u, 0});
  c.add(b, table_);
  EXPECT_TRUE(c.findings().empty());
}

TEST_F(CompletenessTest, RejectThrowsOneLineAllowWarnsAndReturnsTheFindings) {
  const std::vector<std::string> found = {"k.traceg: a", "k.traceg: b"};
  try {
    check_partial(found, PartialTraces::kReject, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "k.traceg: a; k.traceg: b: the trace is partial (--allow-partial reads it anyway)");
  }
  std::vector<std::string> warned;
  EXPECT_EQ(check_partial(found, PartialTraces::kAllow, [&](const std::string& w) { warned.push_back(w); }), found);
  EXPECT_EQ(warned, (std::vector<std::string>{"k.traceg: a (partial trace, read anyway)", "k.traceg: b (partial trace, read anyway)"}));
  EXPECT_TRUE(check_partial({}, PartialTraces::kReject, nullptr).empty());
}

}  // namespace
}  // namespace lockstep
