// Outputs end to end (frontend/io/output_target.h): every output the driver
// names leaves a device, a FIFO or a symbolic link in place, "-" is standard
// output, a directory is a one-line error, an unwritable output is reported
// before the work, and no temporary survives an error or SIGINT/SIGTERM.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/cli_command.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {
namespace fs = std::filesystem;

std::string q(const fs::path& p) { return test::quoted(p); }

// Every command that writes one file, with the output left as "{}".
struct FileOutput {
  const char* what;
  std::string args;
};
std::vector<FileOutput> file_outputs() {
  const std::string trace = q(test::shared_traces() / "vectoradd-sm80");
  return {{"run --stats-json", "run " + trace + " --perfect-memory -q --stats-json {}"},
          {"run --stats-csv", "run " + trace + " --perfect-memory -q --stats-csv {}"},
          {"convert -o", "convert " + trace + " -q -o {}"},
          {"bench --csv", "bench " + trace + " --perfect-memory --threads 1 --repeat 1 --csv {}"},
          {"config --dump -o", "config --gpu QV100 --dump -o {}"},
          {"compare --csv", "compare " + trace + " --models memory,memory --csv {}"}};
}
std::string with_output(const std::string& args, const std::string& output) {
  std::string s = args;
  s.replace(s.find("{}"), 2, output);
  return s;
}

// Names under `dir` (recursively) that look like a temporary output.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path().string());
  return out;
}

// Runs `args` with its output on the FIFO `fifo`, reading the FIFO meanwhile; what came through it.
std::string run_into_fifo(const std::string& args, const fs::path& fifo, const test::ScratchDir& dir) {
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a reader, so the writer's open() returns
  EXPECT_GE(fd, 0);
  std::string got;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    char buf[65536];
    for (;;) {
      const bool finished = done.load();
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) got.append(buf, size_t(n));
      else if (finished) break;  // the command had ended and everything is read
      else std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  const test::CommandResult r = test::lockstep_cmd(args, dir);
  done = true;
  reader.join();
  ::close(fd);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return got;
}

TEST(Outputs, AFifoIsWrittenNotReplaced) {
  test::ScratchDir dir("outputs");
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const FileOutput& o : file_outputs()) {
    SCOPED_TRACE(o.what);
    const std::string got = run_into_fifo(with_output(o.args, q(fifo)), fifo, dir);
    EXPECT_FALSE(got.empty()) << "nothing came through the FIFO";
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo))) << "the FIFO was replaced";
    EXPECT_TRUE(temporaries(dir.path()).empty());
  }
}

TEST(Outputs, ASymlinkIsFollowedAndKept) {
  test::ScratchDir dir("outputs");
  fs::create_directory(dir / "real");
  for (const FileOutput& o : file_outputs()) {
    SCOPED_TRACE(o.what);
    const fs::path link = dir / "link", target = dir / "real" / "out";
    fs::remove(link);
    fs::remove(target);
    fs::create_symlink("real/out", link);  // dangling until the first write, then an existing file
    for (int pass = 0; pass < 2; ++pass) {
      const test::CommandResult r = test::lockstep_cmd(with_output(o.args, q(link)), dir);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced (pass " << pass << ")";
      EXPECT_TRUE(fs::is_regular_file(target));
      EXPECT_GT(fs::file_size(target), 0u);
    }
    EXPECT_TRUE(temporaries(dir.path()).empty());
  }
}

// A character device made here (never the machine's /dev/null): written, never replaced.
TEST(Outputs, ADeviceIsWrittenNotReplaced) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a device node needs root";
  test::ScratchDir dir("outputs");
  const fs::path null_dev = dir / "null", full_dev = dir / "full";
  if (::mknod(null_dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      ::mknod(full_dev.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    GTEST_SKIP() << "mknod is not permitted here (no CAP_MKNOD)";
  auto is_device = [](const fs::path& p, unsigned minor_no) {
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == minor_no;
  };
  for (const FileOutput& o : file_outputs()) {
    SCOPED_TRACE(o.what);
    const test::CommandResult r = test::lockstep_cmd(with_output(o.args, q(null_dev)), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(is_device(null_dev, 3)) << "the device was replaced by a file";
    // A write error on a device (/dev/full's ENOSPC) is one line and leaves the node too.
    const test::CommandResult full = test::lockstep_cmd(with_output(o.args, q(full_dev)), dir);
    EXPECT_EQ(full.exit_code, 1);
    EXPECT_EQ(full.err.find("error:"), full.err.rfind("error:")) << full.err;
    EXPECT_EQ(full.err.back(), '\n');
    EXPECT_EQ(full.err.find('\n', full.err.find("error:")), full.err.size() - 1) << "the error is one last line";
    EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
    EXPECT_TRUE(is_device(full_dev, 7));
    EXPECT_TRUE(temporaries(dir.path()).empty());
  }
}

TEST(Outputs, ADirectoryIsAOneLineErrorAndStaysAsItWas) {
  test::ScratchDir dir("outputs");
  fs::create_directory(dir / "adir");
  for (const FileOutput& o : file_outputs()) {
    SCOPED_TRACE(o.what);
    const test::CommandResult r = test::lockstep_cmd(with_output(o.args, q(dir / "adir")), dir);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_directory(dir / "adir"));
    EXPECT_TRUE(fs::is_empty(dir / "adir"));
    EXPECT_TRUE(temporaries(dir.path()).empty());
  }
}

TEST(Outputs, DashIsStandardOutput) {
  test::ScratchDir dir("outputs");
  for (const FileOutput& o : file_outputs()) {
    SCOPED_TRACE(o.what);
    const test::CommandResult r = test::lockstep_cmd(with_output(o.args, "-"), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(r.out.empty());
    EXPECT_FALSE(fs::exists(dir / "-")) << "a file named '-' was written";
  }
  // The container on standard output is a whole, readable .lst.
  const std::string trace = q(test::shared_traces() / "vectoradd-sm80");
  ASSERT_EQ(test::lockstep_cmd("convert " + trace + " -o - > " + q(dir / "piped.lst"), dir).exit_code, 0);
  const test::CommandResult info = test::lockstep_cmd("info " + q(dir / "piped.lst"), dir);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  // The statistics on standard output are the JSON alone (the summary goes to stderr).
  const test::CommandResult json = test::lockstep_cmd("run " + trace + " --perfect-memory --stats-json -", dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.front(), '{');
  EXPECT_EQ(json.out.find("lockstep run on"), std::string::npos);
  EXPECT_NE(json.err.find("lockstep run on"), std::string::npos);
}

// export and gen write directories: a link to one is followed, a FIFO or "-" is an error that leaves it.
TEST(Outputs, DirectoryOutputsFollowLinksAndRefuseOtherNodes) {
  test::ScratchDir dir("outputs");
  const std::string trace = q(test::shared_traces() / "vectoradd-sm80");
  const std::vector<std::string> commands = {"export " + trace + " -q -o ", "gen vecadd --size 2K -q -o "};
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const std::string& c : commands) {
    SCOPED_TRACE(c);
    fs::remove_all(dir / "real");
    fs::remove(dir / "link");
    fs::create_symlink("real", dir / "link");
    const test::CommandResult r = test::lockstep_cmd(c + q(dir / "link"), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir / "link"));
    EXPECT_TRUE(fs::is_regular_file(dir / "real" / "kernelslist.g"));
    for (const std::string& bad : {q(fifo), std::string("-")}) {
      const test::CommandResult e = test::lockstep_cmd(c + bad, dir);
      EXPECT_NE(e.exit_code, 0);
      EXPECT_EQ(test::count_lines(e.err), 1) << e.err;
    }
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
    EXPECT_TRUE(temporaries(dir.path()).empty());
  }
}

// An output that cannot be written is reported before the work: with a trace
// whose simulation fails, the output's error comes first; a writable output is
// checked without creating anything.
TEST(Outputs, AnUnwritableOutputIsReportedBeforeTheWork) {
  test::ScratchDir dir("outputs");
  test::write_text(dir / "kernel-1.traceg",
                   "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n"
                   "-nregs = 16\n-binary version = 70\n-cuda stream id = 0\n-accelsim tracer version = 3\n\n"
                   "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                   "0000 ffffffff 1 R2 FROBNICATE.X 1 R3 0\n0010 ffffffff 0 EXIT 0 0\n#END_TB\n");
  const std::string bad_trace = q(dir / "kernel-1.traceg") + " --perfect-memory --gpu QV100";
  const std::string missing = (dir / "no-such-dir" / "out").string();
  for (const std::string& args :
       {"run " + bad_trace + " --stats-json " + q(missing), "run " + bad_trace + " --stats-csv " + q(missing),
        "bench " + bad_trace + " --threads 1 --repeat 1 --csv " + q(missing)}) {
    SCOPED_TRACE(args);
    const test::CommandResult r = test::lockstep_cmd(args, dir);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("no-such-dir does not exist"), std::string::npos) << r.err;
  }
  // convert: a kernel list naming a missing kernel fails in reading; the output is reported first.
  fs::create_directory(dir / "listed");
  test::write_text(dir / "listed" / "kernelslist.g", "kernel-1.traceg\n");
  const test::CommandResult c = test::lockstep_cmd("convert " + q(dir / "listed") + " -o " + q(missing), dir);
  EXPECT_NE(c.err.find("no-such-dir does not exist"), std::string::npos) << c.err;
  // The check creates nothing: the run's own error, and no file at the output.
  const test::CommandResult ok = test::lockstep_cmd("run " + bad_trace + " --stats-json " + q(dir / "s.json"), dir);
  EXPECT_NE(ok.err.find("unknown opcode"), std::string::npos) << ok.err;
  EXPECT_FALSE(fs::exists(dir / "s.json"));
  EXPECT_TRUE(temporaries(dir.path()).empty());
}

// SIGTERM or SIGINT while an output is being written: the process ends by the
// signal and its temporary output is gone.
TEST(Outputs, ASignalMidWriteLeavesNoTemporary) {
  test::ScratchDir dir("outputs");
  const std::string bin = test::lockstep_binary().string();
  struct Case {
    std::vector<std::string> argv;
    fs::path temp_prefix;  // "<output>.tmp-" (the pid follows)
    int sig;
  };
  ASSERT_EQ(test::lockstep_cmd("gen vecadd --size 1M -q -o " + q(dir / "g"), dir).exit_code, 0);
  const std::vector<Case> cases = {
      {{bin, "gen", "vecadd", "--size", "50M", "-q", "-o", (dir / "big").string()}, dir / "big.tmp-", SIGTERM},
      {{bin, "convert", (dir / "g").string(), "-q", "--jobs", "1", "-o", (dir / "g.lst").string()}, dir / "g.lst.tmp-",
       SIGINT}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.argv[1]);
    const test::Child child = test::spawn(c.argv, dir / "child.out", dir / "child.err");
    const fs::path temp = c.temp_prefix.string() + std::to_string(child.pid);
    const auto start = std::chrono::steady_clock::now();
    while (!fs::exists(temp) && std::chrono::steady_clock::now() - start < std::chrono::seconds(20))
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(fs::exists(temp)) << "the temporary output never appeared";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::kill(child.pid, c.sig);
    const int status = test::wait_for(child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == c.sig) << "status " << status;
    EXPECT_FALSE(fs::exists(temp));
    EXPECT_TRUE(temporaries(dir.path()).empty());
  }
  EXPECT_FALSE(fs::exists(dir / "big"));
  EXPECT_FALSE(fs::exists(dir / "g.lst"));
}

}  // namespace
}  // namespace lockstep
