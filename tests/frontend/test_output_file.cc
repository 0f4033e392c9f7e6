// frontend/io: an output abandoned mid-write (an exception) leaves the old
// contents and no temporary; a committed one replaces them; a symlink is
// followed; a directory output is built aside and renamed into place.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "frontend/io/output_directory.h"
#include "frontend/io/output_file.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t entries(const fs::path& dir) { return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator{})); }

TEST(OutputFile, AnExceptionMidWriteLeavesTheOldFileAndNoTemporary) {
  test::ScratchDir dir("output-file");
  const fs::path path = dir / "out.txt";
  std::ofstream(path) << "old";
  EXPECT_THROW(
      {
        OutputFile out(path.string());
        out.write("new, partly");
        EXPECT_TRUE(fs::exists(out.temp_name()));
        throw std::runtime_error("failed mid-write");
      },
      std::runtime_error);
  EXPECT_EQ(slurp(path), "old");
  EXPECT_EQ(entries(dir.path()), 1u);
  write_output_file(path.string(), "new");
  EXPECT_EQ(slurp(path), "new");
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(OutputFile, ASymlinkChainIsFollowedToTheFileItNames) {
  test::ScratchDir dir("output-file");
  fs::create_directory(dir / "sub");
  fs::create_symlink("sub/b", dir / "a");
  fs::create_symlink("c.txt", dir / "sub" / "b");  // relative to sub/
  write_output_file((dir / "a").string(), "x");
  EXPECT_TRUE(fs::is_symlink(dir / "a"));
  EXPECT_TRUE(fs::is_symlink(dir / "sub" / "b"));
  EXPECT_EQ(slurp(dir / "sub" / "c.txt"), "x");
  fs::create_symlink("loop", dir / "loop");
  EXPECT_THROW(write_output_file((dir / "loop").string(), "x"), std::runtime_error);
}

TEST(OutputDirectory, BuiltAsideAndRenamedOnlyOnCommit) {
  test::ScratchDir dir("output-dir");
  const auto anything = [](const fs::path&) {};
  {
    OutputDirectory out((dir / "d").string(), anything);
    std::ofstream(out.temp() / "f") << "1";
    EXPECT_FALSE(fs::exists(dir / "d"));
  }  // abandoned
  EXPECT_EQ(entries(dir.path()), 0u);
  {
    OutputDirectory out((dir / "d").string(), anything);
    std::ofstream(out.temp() / "f") << "2";
    out.commit();
  }
  EXPECT_EQ(slurp(dir / "d" / "f"), "2");
  EXPECT_EQ(entries(dir.path()), 1u);
  const auto refuse = [](const fs::path& p) { throw std::runtime_error(p.string() + ": keep"); };
  EXPECT_THROW(OutputDirectory((dir / "d").string(), refuse), std::runtime_error);
  EXPECT_EQ(slurp(dir / "d" / "f"), "2");
}

}  // namespace
}  // namespace lockstep
