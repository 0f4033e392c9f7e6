// Memory-model benchmark. Prints figures, asserts nothing.
//
// `lockstep run --model memory` against `lockstep run` (the cycle model), one
// thread each, on the same .lst of each generated workload (QV100, or --gpu)
// and each real sample trace (converted to .lst; its own architecture): warp instructions, the
// memory model's rate (per wall second, and per second of its own CPU time,
// which other processes on a shared machine do not inflate), the cycle
// model's, the speed-up; the agreement of the two models' totals (L1 and L2
// hit rates in both, DRAM read and write sectors relative to the cycle
// model); the memory model's peak RSS. Last, the memory model's peak RSS on
// stencil2d (x the blocks) and vecadd (x the block length) at 1M and
// --rss-scale x that, so that RSS against trace length can be read off directly.
//
// usage: memory_model [--size 2M] [--gpu QV100] [--rss-scale 100] [--traces DIR] [--workdir DIR]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "bench/sample_traces.h"
#include "frontend/gen/workload_generator.h"

namespace fs = std::filesystem;

namespace {

struct Run {
  bool ok = false;
  double wall = 0, cpu = 0, rss_mb = 0;
  double insts = 0, l1_hit = 0, l2_hit = 0, dram_read = 0, dram_write = 0;
};

double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.rfind("\"" + key + "\"");
  if (at == std::string::npos) return 0;
  return std::atof(json.c_str() + json.find(':', at) + 1);
}

Run run_lockstep(const fs::path& lockstep, const std::string& trace, const std::string& gpu, const fs::path& json,
                 const std::string& model) {
  std::vector<std::string> argv = {lockstep.string(), "run", trace, "--quiet", "--model", model, "--stats-json",
                                   json.string()};
  if (!gpu.empty()) {
    argv.push_back("--gpu");
    argv.push_back(gpu);
  }
  rusage usage{};
  const int status = lockstep::bench::run_child(argv, &usage);
  Run r;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  r.rss_mb = double(usage.ru_maxrss) / 1024.0;
  r.cpu = double(usage.ru_utime.tv_sec) + double(usage.ru_utime.tv_usec) / 1e6 + double(usage.ru_stime.tv_sec) +
          double(usage.ru_stime.tv_usec) / 1e6;
  if (!r.ok) return r;
  std::ifstream in(json);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string j = ss.str();
  r.rss_mb = lockstep::bench::child_peak_rss_mb(j, usage);
  const std::string total = j.substr(j.find("\"total\""));
  r.insts = json_number(total, "smsp__inst_executed.sum");
  r.l1_hit = json_number(total, "l1tex__t_sector_hit_rate.pct");
  r.l2_hit = json_number(total, "lts__t_sector_op_read_hit_rate.pct");
  r.dram_read = json_number(total, "dram__sectors_read.sum");
  r.dram_write = json_number(total, "dram__sectors_write.sum");
  r.wall = json_number(j, "wall_seconds");
  return r;
}

std::string relative(double cycle, double memory) {
  char buf[32];
  if (cycle == 0) return memory == 0 ? "+0.0%" : "new";
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * (memory - cycle) / cycle);
  return buf;
}

void compare(const fs::path& lockstep, const std::string& name, const std::string& trace, const std::string& gpu,
             const fs::path& json) {
  const Run m = run_lockstep(lockstep, trace, gpu, json, "memory");
  const Run c = run_lockstep(lockstep, trace, gpu, json, "cycle");
  if (!m.ok || !c.ok) {
    std::printf("%-30s FAILED\n", name.c_str());
    return;
  }
  const double m_rate = m.wall > 0 ? m.insts / m.wall : 0, c_rate = c.wall > 0 ? c.insts / c.wall : 0;
  std::printf("%-30s %11.0f %8.2f %8.2f %8.3f %7.0fx %6.1f/%-5.1f %6.1f/%-5.1f %8s %8s %7.1f\n", name.c_str(), m.insts,
              m_rate / 1e6, m.cpu > 0 ? m.insts / m.cpu / 1e6 : 0.0, c_rate / 1e6, c_rate > 0 ? m_rate / c_rate : 0.0,
              c.l1_hit, m.l1_hit, c.l2_hit, m.l2_hit, relative(c.dram_read, m.dram_read).c_str(),
              relative(c.dram_write, m.dram_write).c_str(), m.rss_mb);
  std::fflush(stdout);
}

// Generates workload `w` with `size` instructions for `sms` SMs' worth of blocks and converts it to a .lst.
fs::path generate(const fs::path& lockstep, const fs::path& workdir, const std::string& w, uint64_t size, uint32_t sms) {
  lockstep::GenOptions g;
  g.workload = w;
  g.size = size;
  g.sms = sms;
  const fs::path dir = workdir / std::string(w).append("-").append(std::to_string(size));
  lockstep::generate_trace(g, dir);
  const fs::path lst = dir.string() + ".lst";
  if (lockstep::bench::run_child({lockstep.string(), "convert", dir.string(), "-o", lst.string(), "--quiet"}) != 0) return {};
  fs::remove_all(dir);
  return lst;
}

}  // namespace

int main(int argc, char** argv) {
  if (lockstep::bench::wants_help(argc, argv,
                                  "usage: memory_model [--size 2M] [--gpu QV100] [--rss-scale 100] [--traces DIR] "
                                  "[--workdir DIR]\n"
                                  "`lockstep run --model memory` against the cycle model, one thread, on generated "
                                  "workloads and the real sample traces: rates, speed-up, agreement, peak RSS.\n"))
    return 0;
  if (argc % 2 == 0) {
    std::fprintf(stderr, "option %s needs a value (see --help)\n", argv[argc - 1]);
    return 2;
  }
  std::string size = "2M", gpu = "QV100";
  uint32_t rss_scale = 100;
  fs::path traces = lockstep::bench::sample_traces_dir(LOCKSTEP_SOURCE_DIR);
  fs::path workdir = fs::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--size") size = v;
    else if (k == "--gpu") gpu = v;
    else if (k == "--rss-scale") rss_scale = uint32_t(std::max(1, std::atoi(v.c_str())));
    else if (k == "--traces") traces = v;
    else if (k == "--workdir") workdir = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const fs::path lockstep = fs::canonical("/proc/self/exe").parent_path().parent_path() / "lockstep";
  // Removed on any exit, also by SIGINT/SIGTERM.
  const auto scratch = lockstep::bench::ScratchDir::make(workdir, "lockstep-memory-model-bench");
  if (!scratch) return 1;
  workdir = scratch->path();
  const fs::path json = workdir / "stats.json";
  std::printf("memory_model: lockstep run --model memory vs the cycle model, 1 thread, GPU %s (real traces: converted "
              "to .lst, their own architecture)\n",
              gpu.c_str());
  std::printf("%-30s %11s %8s %8s %8s %8s %12s %12s %8s %8s %7s\n", "trace", "warp insts", "mem M/s", "mem M/cpu",
              "cyc M/s", "speed-up", "L1 hit c/m", "L2 hit c/m", "DRAM rd", "DRAM wr", "RSS MB");
  const uint64_t base = lockstep::parse_size(size);
  for (const char* w : {"vecadd", "stream_copy", "stencil2d", "l1_read", "l2_read", "gemm", "graph", "reduce"}) {
    const fs::path lst = generate(lockstep, workdir, w, base, 80);
    if (lst.empty()) return 1;
    compare(lockstep, std::string(w) + " " + std::to_string(base / 1000) + "K", lst.string(), gpu, json);
    fs::remove(lst);
  }
  // The sample traces as users run them again and again: converted once
  // (run on the text, each run would also parse it: what the trace reader's
  // own benchmark, trace_throughput, measures).
  for (const lockstep::bench::SampleTrace& t : lockstep::bench::kSampleTraces) {
    if (!fs::exists(traces / t.path)) continue;
    const std::string name = lockstep::bench::sample_name(t);
    const fs::path lst = workdir / (name + ".lst");
    if (lockstep::bench::run_child({lockstep.string(), "convert", (traces / t.path).string(), "-o", lst.string(), "--quiet"}) !=
        0) {
      std::printf("%-30s FAILED (convert)\n", ("real: " + name).c_str());
      continue;
    }
    compare(lockstep, "real: " + name, lst.string(), "", json);
    fs::remove(lst);
  }
  // RSS against trace length: stencil2d grows by blocks of the same length
  // (more sweeps over the grid), so x the instructions is x the blocks;
  // vecadd (grid-stride) by longer blocks, one wave of them.
  for (const char* w : {"stencil2d", "vecadd"}) {
    std::printf("\nmemory model peak RSS, %s (x the instructions):\n", w);
    for (uint32_t scale : {1u, rss_scale}) {
      const uint64_t n = lockstep::parse_size("1M") * scale;
      const fs::path lst = generate(lockstep, workdir, w, n, 80);
      if (lst.empty()) return 1;
      const Run m = run_lockstep(lockstep, lst.string(), gpu, json, "memory");
      std::printf("  %12.0f warp insts: %7.1f MB peak RSS, %.2f M warp insts per CPU second\n", m.insts, m.rss_mb,
                  m.cpu > 0 ? m.insts / m.cpu / 1e6 : 0.0);
      fs::remove(lst);
    }
  }
  return 0;
}
