// Parts of lockstep sweep on their own: the Slurm array list, shell quoting
// of recorded command lines, the CSV of the results table.
#include <gtest/gtest.h>

#include "frontend/sweep/collect.h"
#include "frontend/sweep/process.h"
#include "frontend/sweep/slurm_launcher.h"

namespace lockstep::sweep {
namespace {

TEST(SweepParts, ArraySpecJoinsRunsOfConsecutivePoints) {
  EXPECT_EQ(array_spec({0, 1, 2, 3, 5, 7, 8}), "0-3,5,7-8");
  EXPECT_EQ(array_spec({4}), "4");
  EXPECT_EQ(array_spec({1, 3}), "1,3");
  EXPECT_EQ(array_spec({}), "");
}

TEST(SweepParts, ShellLineQuotesWhatTheShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_line({"/bin/lockstep", "run", "--set", "sm.max_warps=48", "a/l1off+gto/stats.json"}),
            "/bin/lockstep run --set sm.max_warps=48 a/l1off+gto/stats.json");
  EXPECT_EQ(shell_line({"echo", "two words", "it's", "$HOME", ""}), "echo 'two words' 'it'\\''s' '$HOME' ''");
}

TEST(SweepParts, CsvQuotesFieldsWithCommasAndQuotes) {
  ResultTable t;
  t.columns = {"trace", "config", "override", "kernel", "kernel_name", "cycles"};
  t.rows = {{"t", "A100", "base", "1", "f<int, 2>", "10"}, {"t", "A100", "base", "total", "say \"hi\"", ""}};
  EXPECT_EQ(t.csv(),
            "trace,config,override,kernel,kernel_name,cycles\n"
            "t,A100,base,1,\"f<int, 2>\",10\n"
            "t,A100,base,total,\"say \"\"hi\"\"\",\n");
}

}  // namespace
}  // namespace lockstep::sweep
