// Limits on what a trace may hold, and what is reported when it passes them:
// the longest line, the quoted excerpt of bad input, the container's header and
// table sizes (writer and reader agree), 64-bit stream ids.
#include <gtest/gtest.h>

#include <fstream>

#include "frontend/container/container_reader.h"
#include "frontend/container/container_writer.h"
#include "frontend/text/kernel_header.h"
#include "frontend/text/line_reader.h"
#include "frontend/text/text_parse.h"
#include "frontend/text/trace_layout.h"
#include "frontend/trace/trace_error.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::string> all_lines(LineReader& r) {
  std::vector<std::string> out;
  std::string_view line;
  while (r.next(line)) out.emplace_back(line);
  return out;
}

TEST(InputLimits, ALineOverTheLimitIsAnErrorNamingFileAndLine) {
  const std::string text = "short\n" + std::string(100, 'x') + "\n" + std::string(101, 'y') + "\nafter\n";
  LineReader fits(text, "mem.txt", 101);
  EXPECT_EQ(all_lines(fits).size(), 4u);
  LineReader over(text, "mem.txt", 100);
  EXPECT_EQ(error_of([&] { all_lines(over); }), "mem.txt:3: line longer than 100 bytes (the limit for one line; not a text trace?)");

  // From a file, through the growing buffer, also when the last line has no newline.
  test::ScratchDir dir("limits");
  for (const std::string& tail : {std::string("\n"), std::string()}) {
    SCOPED_TRACE(tail.size());
    std::ofstream(dir / "t.txt", std::ios::binary) << "a\nb\n" << std::string(5000, 'z') << tail;
    LineReader ok(dir / "t.txt", 5000);
    EXPECT_EQ(all_lines(ok).back().size(), 5000u);
    LineReader bad(dir / "t.txt", 4999);
    EXPECT_EQ(error_of([&] { all_lines(bad); }),
              (dir / "t.txt").string() + ":3: line longer than 4999 bytes (the limit for one line; not a text trace?)");
  }
}

// A kernelslist entry the file system cannot even look up (a name longer
// than a path component may be) is a trace error naming the line, not an
// exception from std::filesystem.
TEST(InputLimits, AKernelslistNameTooLongToLookUpIsAnErrorNamingTheLine) {
  test::ScratchDir dir("limits-kernelslist");
  const std::string list = "kernel-1.traceg\n" + std::string(5000, 'k') + "\n";
  LineReader lines(list, "kernelslist.g", 10000);
  std::ofstream(dir / "kernel-1.traceg") << "-kernel name = k\n";
  const std::string error = error_of([&] { parse_kernelslist(lines, dir.path()); });
  EXPECT_TRUE(error.starts_with("kernelslist.g:2: cannot look up 'kkk")) << error;
}

TEST(InputLimits, ErrorsQuoteAtMostAHundredCharactersOfTheInput) {
  EXPECT_EQ(quoted_excerpt("abc"), "'abc'");
  EXPECT_EQ(quoted_excerpt(std::string("a\0\tb", 4)), "'a??b'");
  std::string long_token(99, 'a');
  long_token.append("bc").append(6'000'000, 'd');
  std::string expected = "'";
  expected.append(99, 'a').append("b...' (6000101 bytes)");
  EXPECT_EQ(quoted_excerpt(long_token), expected);
  KernelInfo k;
  EXPECT_EQ(error_of([&] { apply_header_field(k, "nregs", std::string(1000, '7'), "f:3"); }),
            "f:3: nregs: expected an unsigned integer, got '" + std::string(100, '7') + "...' (1000 bytes)");
}

TEST(InputLimits, StreamIdsAreAny64BitValueComparedForEqualityOnly) {
  KernelInfo a, b, c, d;
  apply_header_field(a, "cuda stream id", "-1233924576", "f:1");
  apply_header_field(b, "cuda stream id", "3061042720", "f:1");  // the same low 32 bits
  apply_header_field(c, "cuda stream id", "18446744073709551615", "f:1");
  apply_header_field(d, "cuda stream id", "0x7f00deadbeef", "f:1");
  EXPECT_EQ(a.cuda_stream_id, uint64_t(int64_t(-1233924576)));
  EXPECT_EQ(b.cuda_stream_id, 3061042720u);
  EXPECT_NE(a.cuda_stream_id, b.cuda_stream_id);
  EXPECT_EQ(c.cuda_stream_id, UINT64_MAX);
  EXPECT_EQ(d.cuda_stream_id, 0x7f00deadbeefull);
  EXPECT_EQ(*a.header_field("cuda stream id"), "-1233924576");  // verbatim for export
  KernelInfo e;
  EXPECT_EQ(error_of([&] { apply_header_field(e, "cuda stream id", "18446744073709551616", "f:8"); }),
            "f:8: cuda stream id: expected a 64-bit integer, got '18446744073709551616'");
}

TraceManifest one_kernel(const std::string& name) {
  TraceManifest m;
  KernelInfo k;
  k.name = name;
  k.header_fields.emplace_back("kernel name", name);
  m.kernels.push_back(k);
  m.commands.push_back(TraceCommand{TraceCommand::Kind::kKernel, {}, 0});
  return m;
}

TEST(InputLimits, TheWriterRefusesAHeaderTheReaderWouldNotRead) {
  test::ScratchDir dir("limits");
  const container::Limits small{20000, 20000};
  // 2 x 12 KB of one letter: xz packs it far beyond the ratio bound of other frames.
  const TraceManifest big = one_kernel(std::string(12000, 'N'));
  {
    ContainerWriter w(dir / "big.lst", container::Limits{30000, 20000});
    w.write_header(big);
    w.commit();
  }
  EXPECT_EQ(ContainerReader(dir / "big.lst", container::Limits{30000, 20000}).manifest().kernels[0].name.size(), 12000u);
  EXPECT_NE(error_of([&] { ContainerReader r(dir / "big.lst", small); }).find("big.lst: header: xz frame content exceeds the limit of 20000 bytes"),
            std::string::npos);
  ContainerWriter refusing(dir / "refused.lst", small);
  EXPECT_NE(error_of([&] { refusing.write_header(big); })
                .find("refused.lst: the trace header (kernel names and header lines of 1 kernels) is 24"),
            std::string::npos);
  EXPECT_NE(error_of([&] { refusing.write_header(big); }).find("over the container's limit of 20000 bytes"),
            std::string::npos);

  // The default limit is far above a 5 MB name (which no ratio bound would let through).
  {
    ContainerWriter w(dir / "name.lst");
    w.write_header(one_kernel(std::string(5'000'000, 'N')));
    w.commit();
  }
  EXPECT_EQ(ContainerReader(dir / "name.lst").manifest().kernels[0].name.size(), 5'000'000u);
}

}  // namespace
}  // namespace lockstep
