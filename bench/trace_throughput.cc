// Trace pipeline benchmark. Prints figures, asserts nothing.
//
// On a generated trace: sizes of the text, of `xz -6` text and of the .lst;
// convert wall time and peak RSS (the real `lockstep convert` in a child
// process); single-thread decode rates of the .lst (random-access chunk reads
// and the prefetching stream) against parsing the text and the xz text; ratios
// measured in this run.
//
// usage: trace_throughput [--size 5M] [--workload gemm] [--workdir DIR] [--jobs N]
//                         [--large-gb G]   (also convert a >= G GB text trace, RSS only)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/container/block_stream.h"
#include "frontend/container/container_reader.h"
#include "frontend/gen/workload_generator.h"
#include "frontend/text/text_trace_source.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

uint64_t dir_bytes(const fs::path& dir, const std::string& suffix) {
  uint64_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().string().ends_with(suffix)) n += e.file_size();
  return n;
}

struct ChildRun {
  int status = -1;
  double seconds = 0;
  long max_rss_kb = 0;
};

// Runs argv as a child; wall time and the child's peak resident set.
ChildRun run_child(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    execv(args[0], args.data());
    _exit(127);
  }
  ChildRun r;
  rusage usage{};
  wait4(pid, &r.status, 0, &usage);
  r.seconds = seconds_since(t0);
  r.max_rss_kb = usage.ru_maxrss;
  return r;
}

uint64_t scan_text(const fs::path& dir, double& secs) {
  const auto t0 = Clock::now();
  lockstep::TextTraceSource src(dir, nullptr);
  uint64_t n = 0;
  lockstep::BlockTrace b;
  for (uint32_t k = 0; k < src.manifest().kernels.size(); ++k) {
    auto cursor = src.open_blocks(k);
    while (cursor->next(b)) n += b.warp_insts();
  }
  secs = seconds_since(t0);
  return n;
}

uint64_t scan_lst_chunks(const fs::path& lst, double& secs) {
  const auto t0 = Clock::now();
  lockstep::ContainerReader reader(lst);
  std::vector<lockstep::BlockTrace> blocks;
  uint64_t n = 0;
  for (uint32_t k = 0; k < reader.kernel_count(); ++k)
    for (uint32_t c = 0; c < reader.chunk_count(k); ++c) {
      reader.read_chunk(k, c, blocks);
      for (const auto& b : blocks) n += b.warp_insts();
    }
  secs = seconds_since(t0);
  return n;
}

uint64_t scan_lst_stream(const fs::path& lst, double& secs) {
  const auto t0 = Clock::now();
  lockstep::ContainerReader reader(lst);
  uint64_t n = 0;
  for (uint32_t k = 0; k < reader.kernel_count(); ++k) {
    lockstep::BlockStream stream(reader, k);
    while (const lockstep::BlockTrace* b = stream.next()) n += b->warp_insts();
  }
  secs = seconds_since(t0);
  return n;
}

void line(const char* name, double value, const char* unit) { std::printf("%-44s %14.3f %s\n", name, value, unit); }

}  // namespace

int main(int argc, char** argv) {
  std::string size = "5M", workload = "gemm", jobs = "0";
  fs::path workdir = fs::temp_directory_path() / ("lockstep-bench-" + std::to_string(getpid()));
  double large_gb = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--size") size = v;
    else if (k == "--workload") workload = v;
    else if (k == "--workdir") workdir = v;
    else if (k == "--jobs") jobs = v;
    else if (k == "--large-gb") large_gb = std::atof(v.c_str());
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const fs::path self = fs::canonical("/proc/self/exe");
  const fs::path lockstep_bin = self.parent_path().parent_path() / "lockstep";
  fs::create_directories(workdir);
  const fs::path text = workdir / "text", xz = workdir / "xz", lst = workdir / "trace.lst";
  fs::remove_all(text);
  fs::remove_all(xz);

  lockstep::GenOptions gen;
  gen.workload = workload;
  gen.size = lockstep::parse_size(size);
  auto t0 = Clock::now();
  const lockstep::GenSummary g = lockstep::generate_trace(gen, text);
  const double gen_s = seconds_since(t0);
  std::printf("trace_throughput: workload %s, %u kernels, %llu blocks, %llu warp instructions (lockstep %s)\n",
              workload.c_str(), g.kernels, (unsigned long long)g.blocks, (unsigned long long)g.warp_insts,
              lockstep_bin.c_str());
  line("generate text (MB/s)", double(g.bytes) / gen_s / 1e6, "MB/s");

  // xz -6 of the same text, file by file, as Accel-Sim users store traces.
  fs::create_directories(xz);
  fs::copy_file(text / "kernelslist.g", xz / "kernelslist.g");
  t0 = Clock::now();
  for (const auto& e : fs::directory_iterator(text)) {
    if (e.path().extension() != ".traceg") continue;
    const std::string cmd = "xz -6 -T1 -c '" + e.path().string() + "' > '" + (xz / e.path().filename()).string() + ".xz'";
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "xz failed\n");
      return 1;
    }
  }
  const double xz_s = seconds_since(t0);
  // kernelslist.g names .traceg files; the parser falls back to the .xz beside them.

  const ChildRun conv = run_child({lockstep_bin.string(), "convert", text.string(), "-o", lst.string(), "--quiet", "--jobs", jobs});
  if (conv.status != 0) {
    std::fprintf(stderr, "convert failed\n");
    return 1;
  }
  const ChildRun conv1 = run_child({lockstep_bin.string(), "convert", text.string(), "-o", lst.string(), "--quiet", "--jobs", "1"});

  const uint64_t text_bytes = dir_bytes(text, ".traceg"), xz_bytes = dir_bytes(xz, ".xz"), lst_bytes = fs::file_size(lst);
  line("size text (MB)", double(text_bytes) / 1e6, "MB");
  line("size xz -6 text (MB)", double(xz_bytes) / 1e6, "MB");
  line("size .lst (MB)", double(lst_bytes) / 1e6, "MB");
  line("bytes per warp instruction, .lst", double(lst_bytes) / double(g.warp_insts), "B");
  line("xz -6 compression time", xz_s, "s");
  line("convert wall time (all cores)", conv.seconds, "s");
  line("convert wall time (--jobs 1)", conv1.seconds, "s");
  line("convert peak RSS", double(conv.max_rss_kb) / 1024.0, "MB");

  double s_chunks = 0, s_stream = 0, s_text = 0, s_xz = 0;
  const uint64_t n_chunks = scan_lst_chunks(lst, s_chunks);
  const uint64_t n_stream = scan_lst_stream(lst, s_stream);
  // Parse the xz copy: point a list at the .xz files.
  const uint64_t n_text = scan_text(text, s_text);
  fs::remove_all(text);  // leave only .xz files so the parser reads them
  const uint64_t n_xz = scan_text(xz, s_xz);
  if (n_chunks != g.warp_insts || n_stream != g.warp_insts || n_text != g.warp_insts || n_xz != g.warp_insts) {
    std::fprintf(stderr, "instruction counts disagree: gen %llu lst %llu stream %llu text %llu xz %llu\n",
                 (unsigned long long)g.warp_insts, (unsigned long long)n_chunks, (unsigned long long)n_stream,
                 (unsigned long long)n_text, (unsigned long long)n_xz);
    return 1;
  }
  const double r_lst = double(n_chunks) / s_chunks, r_stream = double(n_stream) / s_stream;
  const double r_text = double(n_text) / s_text, r_xz = double(n_xz) / s_xz;
  line("decode .lst, 1 thread (M warp insts/s)", r_lst / 1e6, "M/s");
  line("decode .lst, prefetching stream (M/s)", r_stream / 1e6, "M/s");
  line("parse text, 1 thread (M warp insts/s)", r_text / 1e6, "M/s");
  line("parse xz text, 1 thread (M warp insts/s)", r_xz / 1e6, "M/s");
  line("ratio .lst size / xz size", double(lst_bytes) / double(xz_bytes), "x");
  line("ratio .lst size / text size", double(lst_bytes) / double(text_bytes), "x");
  line("ratio decode .lst / parse xz text", r_lst / r_xz, "x");
  line("ratio decode .lst / parse text", r_lst / r_text, "x");

  if (large_gb > 0) {
    // A big text trace: convert peak RSS must not grow with the trace.
    const fs::path big = workdir / "large-text", big_lst = workdir / "large.lst";
    fs::remove_all(big);
    lockstep::GenOptions lg = gen;
    lg.size = uint64_t(large_gb * 1e9 / (double(text_bytes) / double(g.warp_insts)));
    t0 = Clock::now();
    const lockstep::GenSummary gl = lockstep::generate_trace(lg, big);
    line("large: text size (GB)", double(gl.bytes) / 1e9, "GB");
    line("large: generate time", seconds_since(t0), "s");
    const ChildRun c = run_child({lockstep_bin.string(), "convert", big.string(), "-o", big_lst.string(), "--quiet", "--jobs", jobs});
    if (c.status != 0) {
      std::fprintf(stderr, "large convert failed\n");
      return 1;
    }
    line("large: convert wall time", c.seconds, "s");
    line("large: convert peak RSS", double(c.max_rss_kb) / 1024.0, "MB");
    line("large: .lst size (MB)", double(fs::file_size(big_lst)) / 1e6, "MB");
    fs::remove_all(big);
    fs::remove(big_lst);
  }
  fs::remove_all(workdir);
  return 0;
}
