// Simulation throughput benchmark. Prints figures, asserts nothing.
//
// Single-thread `lockstep run` on QV100 (or --gpu), with the full memory
// system (or `--memory perfect`), over the generated gemm, vecadd, stencil2d
// and graph workloads at two sizes, and over the real sample traces: warp
// instructions/s; the cycles simulated per second and, apart, the share of the
// run's cycles that fast-forward jumped over (not simulated, so not in the
// rate); what bounds the workload by its own counters (DRAM throughput in % of
// peak, L2 read hit rate); and the peak RSS of each run (the child process's),
// so that RSS against trace length can be read off directly.
//
// usage: sim_throughput [--size 2M] [--gpu QV100] [--memory full|perfect] [--traces DIR] [--workdir DIR]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "frontend/gen/workload_generator.h"

namespace fs = std::filesystem;

namespace {

struct Run {
  bool ok = false;
  double wall = 0, insts_per_s = 0, rss_mb = 0;
  unsigned long long insts = 0;
  unsigned long long simulated = 0, skipped = 0;  // core cycles simulated, and jumped over by fast-forward
  double dram_pct = 0, l2_hit_pct = 0;             // DRAM throughput (% of peak), L2 read hit rate (%)
};

double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.rfind("\"" + key + "\"");
  if (at == std::string::npos) return 0;
  return std::atof(json.c_str() + json.find(':', at) + 1);
}

Run run_lockstep(const fs::path& lockstep, const std::string& trace, const std::string& gpu, const fs::path& json,
                 bool perfect) {
  std::vector<std::string> argv = {lockstep.string(), "run", trace, "--quiet", "--stats-json", json.string()};
  if (perfect) argv.push_back("--perfect-memory");
  if (!gpu.empty()) {
    argv.push_back("--gpu");
    argv.push_back(gpu);
  }
  rusage usage{};
  const int status = lockstep::bench::run_child(argv, &usage);
  Run r;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  r.rss_mb = double(usage.ru_maxrss) / 1024.0;
  if (!r.ok) return r;
  std::ifstream in(json);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string j = ss.str();
  const std::string total = j.substr(j.find("\"total\""));
  r.insts = (unsigned long long)json_number(total, "smsp__inst_executed.sum");
  r.dram_pct = json_number(total, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
  r.l2_hit_pct = json_number(total, "lts__t_sector_op_read_hit_rate.pct");
  r.wall = json_number(j, "wall_seconds");
  r.insts_per_s = json_number(j, "warp_insts_per_second");
  r.simulated = (unsigned long long)(json_number(j, "parallel_cycles") + json_number(j, "serial_cycles"));
  r.skipped = (unsigned long long)json_number(j, "skipped_cycles");
  return r;
}

void print(const std::string& name, const Run& r) {
  if (!r.ok) {
    std::printf("%-34s FAILED\n", name.c_str());
    return;
  }
  const unsigned long long all = r.simulated + r.skipped;
  std::printf("%-34s %12llu %10llu %8.2f %10.3f %12.0f %8.1f%% %7.1f%% %7.1f%% %8.1f\n", name.c_str(), r.insts, all,
              r.wall, r.insts_per_s / 1e6, r.wall > 0 ? double(r.simulated) / r.wall : 0.0,
              all ? 100.0 * double(r.skipped) / double(all) : 0.0, r.dram_pct, r.l2_hit_pct, r.rss_mb);
}

}  // namespace

int main(int argc, char** argv) {
  if (lockstep::bench::wants_help(argc, argv,
                                  "usage: sim_throughput [--size 2M] [--gpu QV100] [--memory full|perfect] "
                                  "[--traces DIR] [--workdir DIR]\n"
                                  "Single-thread `lockstep run` over generated workloads at two sizes and the real "
                                  "sample traces: warp instructions/s, cycles/s, peak RSS.\n"))
    return 0;
  if (argc % 2 == 0) {
    std::fprintf(stderr, "option %s needs a value (see --help)\n", argv[argc - 1]);
    return 2;
  }
  std::string size = "2M", gpu = "QV100", memory = "full";
  fs::path traces = fs::path(LOCKSTEP_SOURCE_DIR) / ".." / "shared" / "traces";
  fs::path workdir = fs::temp_directory_path() / ("lockstep-simbench-" + std::to_string(getpid()));
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--size") size = v;
    else if (k == "--gpu") gpu = v;
    else if (k == "--traces") traces = v;
    else if (k == "--memory") memory = v;
    else if (k == "--workdir") workdir = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const fs::path lockstep = fs::canonical("/proc/self/exe").parent_path().parent_path() / "lockstep";
  if (memory != "full" && memory != "perfect") {
    std::fprintf(stderr, "--memory: expected full or perfect\n");
    return 2;
  }
  const lockstep::bench::ScratchDir scratch(workdir);  // removed on any exit, also by SIGINT/SIGTERM
  const fs::path json = workdir / "stats.json";
  const bool perfect = memory == "perfect";
  std::printf("sim_throughput: lockstep run%s, 1 thread, GPU %s (real traces: their own architecture)\n",
              perfect ? " --perfect-memory" : " (full memory system)", gpu.c_str());
  std::printf("%-34s %12s %10s %8s %10s %12s %9s %8s %8s %8s\n", "trace", "warp insts", "cycles", "wall s",
              "M insts/s", "sim cycles/s", "skipped", "DRAM %pk", "L2 hit", "RSS MB");
  const uint64_t base = lockstep::parse_size(size);
  for (const char* w : {"gemm", "vecadd", "stencil2d", "graph"}) {
    // 4x the instructions as 4x the blocks (a grid sized for 4x the SMs), so
    // the per-block trace stays the same and RSS shows what trace length costs.
    for (uint32_t scale : {1u, 4u}) {
      const uint64_t n = base * scale;
      lockstep::GenOptions g;
      g.workload = w;
      g.size = n;
      g.sms = 80 * scale;
      const fs::path dir = workdir / (std::string(w) + "-" + std::to_string(n));
      lockstep::generate_trace(g, dir);
      const fs::path lst = dir.string() + ".lst";
      const std::string conv = "'" + lockstep.string() + "' convert '" + dir.string() + "' -o '" + lst.string() + "' --quiet";
      if (lockstep::bench::run_shell(conv) != 0) return 1;
      fs::remove_all(dir);
      print(std::string(w) + " " + std::to_string(n / 1000) + "K", run_lockstep(lockstep, lst.string(), gpu, json, perfect));
      fs::remove(lst);
    }
  }
  for (const char* t : {"vectoradd-sm80", "bfs-rodinia-sm80", "matrixmul-sm61", "flashinfer-gemm-sm80/traces",
                        "lud-kernel8-sm70"})
    if (fs::exists(traces / t)) print(std::string("real: ") + t, run_lockstep(lockstep, (traces / t).string(), "", json, perfect));
  return 0;
}
