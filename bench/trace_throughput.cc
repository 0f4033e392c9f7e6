// Trace pipeline benchmark. Prints figures, asserts nothing.
//
// On a generated trace: sizes of the text, of `xz -6` text and of the .lst;
// convert wall time and peak RSS (the real `lockstep convert` in a child
// process); single-thread decode rates of the .lst (random-access chunk reads
// and the prefetching stream) against parsing the text and the xz text; ratios
// measured in this run.
//
// usage: trace_throughput [--size 5M] [--workload gemm] [--workdir DIR] [--jobs N]
//                         [--repeat R]     (each decode/parse rate: best of R passes)
//                         [--large-gb G]   (also convert a >= G GB text trace, RSS only)
//        trace_throughput --all [--size 2M] [--repeat R] ...
//                         every workload in turn, then one table of them all
//        trace_throughput --index [--index-blocks 100K,1M]
//                         what a trace's block index costs: `lockstep gen
//                         empty_kernel` at each block count, converted in the
//                         current format and in format version 2 (the index in
//                         the footer); file size, and the peak RSS of `lockstep
//                         info` and of `lockstep run --perfect-memory` on each
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "frontend/container/block_stream.h"
#include "frontend/container/container_reader.h"
#include "frontend/container/format.h"
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
ChildRun run_child(const std::vector<std::string>& argv, bool quiet = false) {
  const auto t0 = Clock::now();
  ChildRun r;
  rusage usage{};
  r.status = lockstep::bench::run_child(argv, &usage, quiet);
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

struct Options {
  std::string size = "5M", workload = "gemm", jobs = "0";
  fs::path workdir;
  double large_gb = 0;
  int repeat = 1;
};

struct Row {
  std::string workload;
  uint64_t warp_insts = 0;
  uint64_t xz_bytes = 0, lst_bytes = 0;
  double convert_s = 0, convert1_s = 0;
  double r_lst = 0, r_stream = 0, r_xz = 0;
};

// The best (shortest) of `repeat` timed passes; every pass must see `want` instructions.
template <class F>
bool best_of(int repeat, uint64_t want, double& secs, F&& pass) {
  secs = 0;
  for (int i = 0; i < repeat; ++i) {
    double s = 0;
    if (pass(s) != want) return false;
    secs = i == 0 ? s : std::min(secs, s);
  }
  return true;
}

int run_one(const Options& o, const std::string& workload, const fs::path& workdir, Row& row) {
  const fs::path self = fs::canonical("/proc/self/exe");
  const fs::path lockstep_bin = self.parent_path().parent_path() / "lockstep";
  fs::create_directories(workdir);
  const fs::path text = workdir / "text", xz = workdir / "xz", lst = workdir / "trace.lst";
  fs::remove_all(text);
  fs::remove_all(xz);
  const std::string& size = o.size;
  const std::string& jobs = o.jobs;
  const double large_gb = o.large_gb;
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
    if (lockstep::bench::run_shell(cmd) != 0) {
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
  const uint64_t want = g.warp_insts;
  const int rep = o.repeat;
  bool ok = best_of(rep, want, s_chunks, [&](double& s) { return scan_lst_chunks(lst, s); });
  ok = ok && best_of(rep, want, s_stream, [&](double& s) { return scan_lst_stream(lst, s); });
  ok = ok && best_of(rep, want, s_text, [&](double& s) { return scan_text(text, s); });
  // Parse the xz copy: with the text gone the parser falls back to the .xz files.
  fs::remove_all(text);
  ok = ok && best_of(rep, want, s_xz, [&](double& s) { return scan_text(xz, s); });
  if (!ok) {
    std::fprintf(stderr, "instruction counts disagree with the generator's %llu\n", (unsigned long long)want);
    return 1;
  }
  const uint64_t n_chunks = want, n_stream = want, n_text = want, n_xz = want;
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
  row.workload = workload;
  row.warp_insts = g.warp_insts;
  row.xz_bytes = xz_bytes;
  row.lst_bytes = lst_bytes;
  row.convert_s = conv.seconds;
  row.convert1_s = conv1.seconds;
  row.r_lst = r_lst;
  row.r_stream = r_stream;
  row.r_xz = r_xz;
  return 0;
}

// --index: per block count, the index's cost in each format, measured in this run.
int run_index(const fs::path& workdir, const std::string& sizes) {
  const fs::path lockstep_bin = fs::canonical("/proc/self/exe").parent_path().parent_path() / "lockstep";
  std::printf("trace_throughput --index: lockstep gen empty_kernel (one warp per block), converted in format %u "
              "and in format 2; peak RSS of `lockstep info` and `lockstep run --gpu QV100 --perfect-memory`\n",
              lockstep::container::kFormatVersion);
  std::printf("%10s %8s %12s %12s %12s %12s %12s %12s\n", "blocks", "format", ".lst KB", "info MB", "run MB",
              "info s", "run s", "info MB/v2");
  size_t at = 0;
  while (at <= sizes.size()) {
    const size_t comma = std::min(sizes.find(',', at), sizes.size());
    const std::string size = sizes.substr(at, comma - at);
    at = comma + 1;
    lockstep::GenOptions gen;
    gen.workload = "empty_kernel";
    gen.size = lockstep::parse_size(size);
    // Everything runs in child processes: a child's peak RSS counts this
    // process's at the fork (run_child), so this one stays small.
    const fs::path text = workdir / ("text-" + size);
    fs::remove_all(text);
    if (run_child({lockstep_bin.string(), "gen", "empty_kernel", "--size", size, "-o", text.string()}, true).status != 0) {
      std::fprintf(stderr, "lockstep gen failed\n");
      return 1;
    }
    const uint64_t blocks = lockstep::parse_size(size);
    double info_mb[2] = {0, 0};
    for (const uint32_t version : {uint32_t(2), lockstep::container::kFormatVersion}) {
      const fs::path lst = workdir / (std::string("v").append(std::to_string(version)).append("-").append(size).append(".lst"));
      const ChildRun conv = run_child({lockstep_bin.string(), "convert", text.string(), "-o", lst.string(), "-q",
                                       "--format-version", std::to_string(version)});
      const ChildRun info = run_child({lockstep_bin.string(), "info", lst.string()}, true);
      const ChildRun run = run_child({lockstep_bin.string(), "run", lst.string(), "--gpu", "QV100", "--perfect-memory", "-q"});
      if (conv.status != 0 || info.status != 0 || run.status != 0) {
        std::fprintf(stderr, "lockstep convert, info or run failed on %s\n", lst.c_str());
        return 1;
      }
      const int slot = version == 2 ? 0 : 1;
      info_mb[slot] = double(info.max_rss_kb) / 1024.0;
      std::printf("%10llu %8u %12.1f %12.1f %12.1f %12.3f %12.3f %12.2f\n", (unsigned long long)blocks, version,
                  double(fs::file_size(lst)) / 1e3, info_mb[slot], double(run.max_rss_kb) / 1024.0, info.seconds,
                  run.seconds, info_mb[0] > 0 ? info_mb[slot] / info_mb[0] : 0.0);
      fs::remove(lst);
    }
    fs::remove_all(text);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (lockstep::bench::wants_help(
          argc, argv,
          "usage: trace_throughput [--size 5M] [--workload gemm] [--workdir DIR] [--jobs N]\n"
          "                        [--repeat R]     (each decode/parse rate: best of R passes)\n"
          "                        [--large-gb G]   (also convert a >= G GB text trace, RSS only)\n"
          "       trace_throughput --all [--size 2M] [--repeat R] ...\n"
          "                        every workload in turn, then one table of them all\n"
          "       trace_throughput --index [--index-blocks 100K,1M]\n"
          "                        a trace's block index in each format: file size, info and run peak RSS\n"))
    return 0;
  Options o;
  o.workdir = fs::temp_directory_path();
  bool all = false, size_given = false, index = false;
  std::string index_blocks = "100K,1M";
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--all" || k == "--index") {
      (k == "--all" ? all : index) = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "option %s needs a value\n", k.c_str());
      return 2;
    }
    const std::string v = argv[++i];
    if (k == "--size") o.size = v, size_given = true;
    else if (k == "--workload") o.workload = v;
    else if (k == "--workdir") o.workdir = v;
    else if (k == "--jobs") o.jobs = v;
    else if (k == "--large-gb") o.large_gb = std::atof(v.c_str());
    else if (k == "--repeat") o.repeat = std::max(1, std::atoi(v.c_str()));
    else if (k == "--index-blocks") index_blocks = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  // Removed on any exit, also by SIGINT/SIGTERM.
  const auto scratch = lockstep::bench::ScratchDir::make(o.workdir, "lockstep-trace-bench");
  if (!scratch) return 1;
  o.workdir = scratch->path();
  if (index) {
    fs::create_directories(o.workdir);
    return run_index(o.workdir, index_blocks);
  }
  if (!all) {
    Row row;
    return run_one(o, o.workload, o.workdir, row);
  }
  if (!size_given) o.size = "2M";  // --all defaults to 2M per workload
  std::vector<Row> rows;
  for (const char* w : {"vecadd", "stencil2d", "gemm", "graph", "reduce"}) {
    std::printf("\n");
    Row row;
    if (const int rc = run_one(o, w, o.workdir / w, row); rc != 0) return rc;
    rows.push_back(row);
  }
  fs::remove_all(o.workdir);
  std::printf("\nsummary (--size %s, best of %d; decode rates single-threaded, M warp instructions/s)\n",
              o.size.c_str(), o.repeat);
  std::printf("%-10s %10s %10s %10s %8s %9s %9s %9s %9s %9s %9s\n", "workload", "warp insts", "xz -6 KB",
              ".lst KB", "lst/xz", "conv s", "conv1 s", "decode", "stream", "xz parse", "dec/xz");
  for (const Row& r : rows)
    std::printf("%-10s %10llu %10.1f %10.1f %8.3f %9.3f %9.3f %9.1f %9.1f %9.2f %9.1f\n", r.workload.c_str(),
                (unsigned long long)r.warp_insts, double(r.xz_bytes) / 1e3, double(r.lst_bytes) / 1e3,
                double(r.lst_bytes) / double(r.xz_bytes), r.convert_s, r.convert1_s, r.r_lst / 1e6,
                r.r_stream / 1e6, r.r_xz / 1e6, r.r_lst / r.r_xz);
  return 0;
}
