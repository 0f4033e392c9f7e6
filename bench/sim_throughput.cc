// Simulation throughput benchmark. Prints figures, asserts nothing.
//
// --mode speed (default): `lockstep run` on QV100 (or --gpu), with the full
// memory system (or `--memory perfect`), over the generated stencil2d, gemm
// and graph workloads at --size (10M) and over the real sample traces, on
// each of --threads (1,2; two threads with the default options): warp
// instructions/s, simulated cycles/s, ns per warp instruction, the share of
// the run's cycles that fast-forward jumped over (not simulated, so not in
// the cycle rate), what bounds the workload by its own counters (DRAM
// throughput in % of peak, L2 read hit rate) and the peak RSS of each run.
//
// --mode rss: peak RSS against trace length: `lockstep gen graph --seed 2`
// at each of --rss-sizes (2M,50M), same grid shape per kernel (more blocks),
// run with the full memory system and with --perfect-memory; prints each
// peak RSS and its ratio to the first size's, measured in the same run, and
// whether the trace fills the GPU: its largest grid against the first wave
// (blocks every SM holds at once), since a trace whose kernels never fill
// the GPU holds fewer blocks, whatever its length.
//
// --mode defaults: the engine's options on 2 threads (--threads' largest)
// over the same workloads and traces: every partition x schedule x handshake
// against seq on one thread (median wall time of --repeat runs each), to
// choose the defaults from (`lockstep run --threads 2` alone is the row
// marked "default").
//
// --mode segments: `lockstep gen W --size N` for each of --workloads
// (vecadd,graph), converted with each --segment-insts of --segments
// (0,1024,256; 0: blocks whole), run on one thread: file size, wall time and
// peak RSS of each.
//
// --mode versus: this build against another one (--reference PATH: its
// lockstep binary, e.g. an earlier commit built aside) on the generated
// stencil2d, gemm and graph workloads at --size: each build converts the
// same generated text trace into its own format, then the two run in turn,
// --repeat rounds on each of --threads: median wall time of each, the ratio
// (reference / this build: the speedup) and each build's warp instructions
// per second. On a machine whose speed drifts (a shared VM), a ratio
// measured in one run is what says whether a build got faster; absolute
// rates from different hours do not. --model memory|abstract: both builds
// run that model (builds that have it).
//
// usage: sim_throughput [--mode speed|rss|defaults|segments|versus] [--size 10M] [--threads 1,2] [--gpu QV100]
//                       [--memory full|perfect] [--rss-sizes 2M,50M] [--repeat 1] [--traces DIR] [--workdir DIR]
//                       [--workloads vecadd,graph] [--segments 0,1024,256] [--reference PATH]
//                       [--model cycle|memory|abstract]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "bench/sample_traces.h"
#include "configs/spec/gpu_config.h"
#include "core/occupancy.h"
#include "frontend/container/container_reader.h"
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

struct Options {
  fs::path lockstep, json;
  std::string gpu = "QV100";
  bool perfect = false;
};

// One `lockstep run` of `trace` with `extra` options (gpu empty: the trace's own architecture).
Run run_lockstep(const Options& o, const std::string& trace, const std::string& gpu, bool perfect,
                 const std::vector<std::string>& extra = {}, const fs::path& binary = {}) {
  std::vector<std::string> argv = {(binary.empty() ? o.lockstep : binary).string(), "run", trace, "--quiet", "--stats-json", o.json.string()};
  if (perfect) argv.push_back("--perfect-memory");
  if (!gpu.empty()) {
    argv.push_back("--gpu");
    argv.push_back(gpu);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  rusage usage{};
  const int status = lockstep::bench::run_child(argv, &usage);
  Run r;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  r.rss_mb = double(usage.ru_maxrss) / 1024.0;
  if (!r.ok) return r;
  std::ifstream in(o.json);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string j = ss.str();
  r.rss_mb = lockstep::bench::child_peak_rss_mb(j, usage);
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

void print_speed(const std::string& name, uint32_t threads, const Run& r) {
  if (!r.ok) {
    std::printf("%-30s %3u FAILED\n", name.c_str(), threads);
    return;
  }
  const unsigned long long all = r.simulated + r.skipped;
  std::printf("%-30s %3u %12llu %10llu %8.2f %9.3f %12.0f %9.0f %8.1f%% %7.1f%% %7.1f%% %8.1f\n", name.c_str(),
              threads, r.insts, all, r.wall, r.insts_per_s / 1e6, r.wall > 0 ? double(r.simulated) / r.wall : 0.0,
              r.insts ? r.wall * 1e9 / double(r.insts) : 0.0, all ? 100.0 * double(r.skipped) / double(all) : 0.0,
              r.dram_pct, r.l2_hit_pct, r.rss_mb);
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Converts the text trace `dir` with `binary` into `lst` (`extra`: more
// convert options); false if it failed.
bool convert_with(const fs::path& binary, const fs::path& dir, const fs::path& lst,
                  const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {binary.string(), "convert", dir.string(), "-o", lst.string(), "--quiet"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const int rc = lockstep::bench::run_child(argv);
  return WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

// Writes the text trace of `workload` at `size` warp instructions into `dir`.
void generate_text(const std::string& workload, uint64_t size, uint64_t seed, const fs::path& dir) {
  lockstep::GenOptions g;
  g.workload = workload;
  g.size = size;
  g.seed = seed;
  lockstep::generate_trace(g, dir);
}

// Generates `workload` at `size` warp instructions (seed 1 unless given) and converts it; the .lst path.
fs::path generate(const Options& o, const fs::path& workdir, const std::string& workload, uint64_t size,
                  uint64_t seed = 1, const std::vector<std::string>& segment_sizes = {}) {
  const fs::path dir = workdir / (workload + "-" + std::to_string(size));
  generate_text(workload, size, seed, dir);
  const fs::path lst = dir.string() + ".lst";
  bool ok = convert_with(o.lockstep, dir, lst);
  // Also as DIR-S<n>.lst with --segment-insts n, each size asked for.
  for (const std::string& n : segment_sizes)
    if (ok) ok = convert_with(o.lockstep, dir, dir.string() + "-S" + n + ".lst", {"--segment-insts", n});
  fs::remove_all(dir);
  if (!ok) throw std::runtime_error("lockstep convert failed on " + dir.string());
  return lst;
}

std::string size_name(uint64_t n) {
  return n % 1000000 == 0 ? std::to_string(n / 1000000) + "M" : std::to_string(n / 1000) + "K";
}

// The traces a mode runs: the generated workloads, then the sample traces that exist.
struct Trace {
  std::string name, path, gpu;  // gpu empty: the trace's own architecture
};
const char* const kWorkloads[] = {"stencil2d", "gemm", "graph"};

void mode_speed(const Options& o, const std::vector<Trace>& traces, const std::vector<uint32_t>& threads) {
  std::printf("sim_throughput: lockstep run%s, GPU %s (real traces: their own architecture); default options "
              "beyond --threads\n",
              o.perfect ? " --perfect-memory" : " (full memory system)", o.gpu.c_str());
  std::printf("%-30s %3s %12s %10s %8s %9s %12s %9s %9s %8s %8s %8s\n", "trace", "thr", "warp insts", "cycles",
              "wall s", "M inst/s", "sim cycle/s", "ns/inst", "skipped", "DRAM %pk", "L2 hit", "RSS MB");
  for (const Trace& t : traces)
    for (uint32_t n : threads)
      print_speed(t.name, n, run_lockstep(o, t.path, t.gpu, o.perfect, {"--threads", std::to_string(n)}));
}

void mode_rss(const Options& o, const fs::path& workdir, const std::vector<uint64_t>& sizes) {
  std::printf("sim_throughput --mode rss: lockstep gen graph --seed 2 at each size, run on %s; peak RSS of each "
              "run and its ratio to the first size's\n",
              o.gpu.c_str());
  std::printf("%-16s %12s %13s %11s %18s %8s %18s %8s\n", "trace", "warp insts", "largest grid", "first wave",
              "full memory MB", "ratio", "perfect mem MB", "ratio");
  const lockstep::GpuSpec spec = lockstep::load_gpu_spec(o.gpu);
  double first[2] = {0, 0};
  // Among the sizes whose largest grid fills the GPU: the first one's RSS and the last one's.
  double full_first[2] = {0, 0}, full_last[2] = {0, 0};
  std::string full_first_name, full_last_name;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const fs::path lst = generate(o, workdir, "graph", sizes[i], 2);
    // The largest grid and the first wave of that kernel (occupancy x SMs).
    uint64_t grid = 0, wave = 0;
    {
      const lockstep::ContainerReader reader(lst);
      for (uint32_t k = 0; k < reader.manifest().kernels.size(); ++k) {
        const lockstep::KernelInfo& info = reader.manifest().kernels[k];
        if (reader.block_count(k) <= grid) continue;
        grid = reader.block_count(k);
        wave = uint64_t(spec.sms) *
               lockstep::compute_occupancy(spec.sm, lockstep::KernelShape{info.threads_per_block(), info.nregs,
                                                                          info.shmem_bytes})
                   .blocks_per_sm;
      }
    }
    double rss[2] = {0, 0};
    unsigned long long insts = 0;
    for (int perfect : {0, 1}) {
      const Run r = run_lockstep(o, lst.string(), o.gpu, perfect != 0);
      rss[perfect] = r.ok ? r.rss_mb : 0;
      if (r.ok) insts = r.insts;
      if (i == 0) first[perfect] = rss[perfect];
    }
    fs::remove(lst);
    std::printf("%-16s %12llu %13llu %11llu %18.1f %7.2fx %18.1f %7.2fx\n", ("graph " + size_name(sizes[i])).c_str(),
                insts, (unsigned long long)grid, (unsigned long long)wave, rss[0],
                first[0] > 0 ? rss[0] / first[0] : 0.0, rss[1], first[1] > 0 ? rss[1] / first[1] : 0.0);
    if (wave > 0 && grid >= wave) {
      if (full_first_name.empty()) {
        full_first_name = size_name(sizes[i]);
        full_first[0] = rss[0];
        full_first[1] = rss[1];
      }
      full_last_name = size_name(sizes[i]);
      full_last[0] = rss[0];
      full_last[1] = rss[1];
    }
  }
  if (!full_first_name.empty() && full_last_name != full_first_name && full_first[0] > 0 && full_first[1] > 0)
    std::printf("sizes that fill the GPU: graph %s against graph %s: %.2fx (full memory), %.2fx (perfect memory)\n",
                full_last_name.c_str(), full_first_name.c_str(), full_last[0] / full_first[0],
                full_last[1] / full_first[1]);
}

// --mode segments: the same trace converted with each --segment-insts and
// run on one thread; peak RSS, wall time and file size, in one run.
void mode_segments(const Options& o, const fs::path& workdir, const std::vector<std::string>& workloads,
                   uint64_t size, const std::vector<std::string>& segment_sizes) {
  std::printf("sim_throughput --mode segments: lockstep gen W --size %s, converted with each --segment-insts (0: "
              "blocks whole), run on %s%s, one thread\n",
              size_name(size).c_str(), o.gpu.c_str(), o.perfect ? " with --perfect-memory" : " (full memory system)");
  std::printf("%-16s %14s %12s %10s %8s %10s\n", "trace", "segment insts", "warp insts", "file MB", "wall s",
              "RSS MB");
  for (const std::string& w : workloads) {
    const fs::path plain = generate(o, workdir, w, size, 1, segment_sizes);
    fs::remove(plain);
    const std::string stem = plain.string().substr(0, plain.string().size() - 4);
    for (const std::string& n : segment_sizes) {
      const fs::path lst = stem + "-S" + n + ".lst";
      const double mb = double(fs::file_size(lst)) / 1e6;
      const Run r = run_lockstep(o, lst.string(), o.gpu, o.perfect, {"--threads", "1"});
      if (!r.ok) std::printf("%-16s %14s FAILED\n", (w + " " + size_name(size)).c_str(), n.c_str());
      else
        std::printf("%-16s %14s %12llu %10.2f %8.2f %10.1f\n", (w + " " + size_name(size)).c_str(), n.c_str(),
                    r.insts, mb, r.wall, r.rss_mb);
      fs::remove(lst);
    }
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// --mode versus: the reference build and this one in turn on the same generated workloads.
void mode_versus(const Options& o, const fs::path& reference, const fs::path& workdir, uint64_t size,
                 const std::vector<uint32_t>& threads, int repeat, const std::string& model) {
  std::printf("sim_throughput --mode versus: reference %s against this build (%s), --model %s, GPU %s%s; %d "
              "round(s), the two builds in turn; medians\n",
              reference.string().c_str(), o.lockstep.string().c_str(), model.c_str(), o.gpu.c_str(),
              o.perfect ? " --perfect-memory" : model == "memory" ? "" : " (full memory system)", repeat);
  std::printf("%-16s %3s %12s %10s %10s %9s %9s %10s %10s %9s %9s\n", "trace", "thr", "warp insts", "ref cycles",
              "cycles", "ref s", "s", "ref M/s", "M/s", "speedup", "pairs");
  for (const char* w : kWorkloads) {
    const std::string name = std::string(w) + " " + size_name(size);
    const fs::path dir = workdir / (std::string(w) + "-text");
    generate_text(w, size, 1, dir);
    const fs::path ref_lst = workdir / (std::string(w) + "-reference.lst"), lst = workdir / (std::string(w) + ".lst");
    const bool ref_ok = convert_with(reference, dir, ref_lst), ok = convert_with(o.lockstep, dir, lst);
    fs::remove_all(dir);
    if (!ref_ok || !ok) {
      std::printf("%-16s FAILED: %s could not convert the generated trace\n", name.c_str(),
                  (!ref_ok ? reference : o.lockstep).string().c_str());
      continue;
    }
    for (uint32_t n : threads) {
      std::vector<std::string> extra = {"--threads", std::to_string(n)};
      if (model != "cycle") extra.insert(extra.end(), {"--model", model});
      std::vector<double> ref_walls, walls, ratios;
      Run ref_run, run;
      for (int i = 0; i < repeat; ++i) {
        ref_run = run_lockstep(o, ref_lst.string(), o.gpu, o.perfect, extra, reference);
        run = run_lockstep(o, lst.string(), o.gpu, o.perfect, extra);
        if (!ref_run.ok || !run.ok) break;
        ref_walls.push_back(ref_run.wall);
        walls.push_back(run.wall);
        ratios.push_back(run.wall > 0 ? ref_run.wall / run.wall : 0);
      }
      if (!ref_run.ok || !run.ok) {
        std::printf("%-16s %3u FAILED (%s)\n", name.c_str(), n, !ref_run.ok ? "reference" : "this build");
        continue;
      }
      const double ref_s = median(ref_walls), s = median(walls);
      // The memory and abstract models step no cycles: "-", not 0.
      auto cycles = [&](const Run& r) {
        return model == "cycle" ? std::to_string(r.simulated + r.skipped) : std::string("-");
      };
      std::printf("%-16s %3u %12llu %10s %10s %9.2f %9.2f %10.3f %10.3f %8.2fx %4.2f-%.2fx\n", name.c_str(), n,
                  run.insts, cycles(ref_run).c_str(), cycles(run).c_str(), ref_s, s,
                  ref_s > 0 ? double(ref_run.insts) / ref_s / 1e6 : 0.0, s > 0 ? double(run.insts) / s / 1e6 : 0.0,
                  s > 0 ? ref_s / s : 0.0, *std::min_element(ratios.begin(), ratios.end()),
                  *std::max_element(ratios.begin(), ratios.end()));
    }
    fs::remove(ref_lst);
    fs::remove(lst);
  }
}

void mode_defaults(const Options& o, const std::vector<Trace>& traces, uint32_t threads, int repeat) {
  std::printf("sim_throughput --mode defaults: %u threads, every partition x schedule x handshake, median wall of %d "
              "run(s); speedup against seq on 1 thread%s\n",
              threads, repeat, o.perfect ? ", --perfect-memory" : ", full memory system");
  std::printf("%-30s %-11s %-7s %-6s %9s %8s\n", "trace", "partition", "sched", "hshake", "wall s", "speedup");
  for (const Trace& t : traces) {
    auto timed = [&](const std::vector<std::string>& extra) {
      std::vector<double> walls;
      for (int i = 0; i < repeat; ++i) {
        const Run r = run_lockstep(o, t.path, t.gpu, o.perfect, extra);
        if (!r.ok) return -1.0;
        walls.push_back(r.wall);
      }
      return median(walls);
    };
    const double seq = timed({"--threads", "1"});
    std::printf("%-30s %-11s %-7s %-6s %9.2f %8s\n", t.name.c_str(), "-", "seq", "-", seq, "1.00x");
    const double def = timed({"--threads", std::to_string(threads)});
    std::printf("%-30s %-11s %-7s %-6s %9.2f %7.2fx\n", t.name.c_str(), "default", "default", "default", def,
                def > 0 ? seq / def : 0.0);
    for (const char* partition : {"contiguous", "round-robin", "balanced"})
      for (const char* schedule : {"para1", "para2"})
        for (const char* handshake : {"spin", "std"}) {
          const double w = timed({"--threads", std::to_string(threads), "--partition", partition, "--schedule",
                                  schedule, "--handshake", handshake});
          std::printf("%-30s %-11s %-7s %-6s %9.2f %7.2fx\n", t.name.c_str(), partition, schedule, handshake, w,
                      w > 0 ? seq / w : 0.0);
        }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (lockstep::bench::wants_help(argc, argv,
                                  "usage: sim_throughput [--mode speed|rss|defaults|segments|versus] [--size 10M] "
                                  "[--threads 1,2] [--gpu QV100] [--memory full|perfect] [--rss-sizes 2M,50M] "
                                  "[--repeat 1] [--traces DIR] [--workdir DIR] [--workloads vecadd,graph] "
                                  "[--segments 0,1024,256] [--reference PATH] [--model cycle|memory|abstract]\n"
                                  "speed: warp instructions/s, simulated cycles/s, ns per warp instruction and peak "
                                  "RSS of the generated stencil2d, gemm and graph workloads and the sample traces, "
                                  "per thread count.\n"
                                  "rss: peak RSS of the graph workload at each size and the ratio to the first.\n"
                                  "segments: each workload converted with each segment size (0: whole): file size, "
                                  "one-thread wall time and peak RSS.\n"
                                  "defaults: every partition x schedule x handshake on the largest thread count "
                                  "against seq.\n"
                                  "versus: the lockstep binary --reference PATH (another build) and this build in "
                                  "turn on the generated workloads, --repeat rounds (3 unless given): the speedup "
                                  "measured in one run; --model: the model both run (cycle).\n"))
    return 0;
  if (argc % 2 == 0) {
    std::fprintf(stderr, "option %s needs a value (see --help)\n", argv[argc - 1]);
    return 2;
  }
  std::string mode = "speed", size = "10M", memory = "full", thread_list = "1,2", rss_sizes = "2M,50M";
  std::string segment_list = "0,1024,256", workload_list = "vecadd,graph";
  int repeat = 0;  // 0: the mode's default (1; 3 for versus)
  std::string model = "cycle";  // versus: the model both builds run
  fs::path reference;
  Options o;
  fs::path traces_dir = lockstep::bench::sample_traces_dir(LOCKSTEP_SOURCE_DIR);
  fs::path workdir = fs::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--mode") mode = v;
    else if (k == "--size") size = v;
    else if (k == "--gpu") o.gpu = v;
    else if (k == "--traces") traces_dir = v;
    else if (k == "--memory") memory = v;
    else if (k == "--threads") thread_list = v;
    else if (k == "--rss-sizes") rss_sizes = v;
    else if (k == "--segments") segment_list = v;
    else if (k == "--workloads") workload_list = v;
    else if (k == "--repeat") repeat = std::max(1, std::atoi(v.c_str()));
    else if (k == "--workdir") workdir = v;
    else if (k == "--reference") reference = v;
    else if (k == "--model") model = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (memory != "full" && memory != "perfect") {
    std::fprintf(stderr, "--memory: expected full or perfect\n");
    return 2;
  }
  if (mode != "speed" && mode != "rss" && mode != "defaults" && mode != "segments" && mode != "versus") {
    std::fprintf(stderr, "--mode: expected speed, rss, defaults, segments or versus\n");
    return 2;
  }
  if (model != "cycle" && model != "memory" && model != "abstract") {
    std::fprintf(stderr, "--model: expected cycle, memory or abstract\n");
    return 2;
  }
  if (model != "cycle" && mode != "versus") {
    std::fprintf(stderr, "--model: for --mode versus only (the other modes measure the cycle model)\n");
    return 2;
  }
  if (model == "memory" && memory == "perfect") {
    std::fprintf(stderr, "--memory perfect: the memory model has no fixed-latency form\n");
    return 2;
  }
  if (mode == "versus") {
    std::error_code ec;
    if (reference.empty() || !fs::is_regular_file(reference, ec) || ::access(reference.c_str(), X_OK) != 0) {
      std::fprintf(stderr, "--mode versus: --reference must name an executable lockstep binary%s\n",
                   reference.empty() ? "" : (" (" + reference.string() + " is not one)").c_str());
      return 2;
    }
    reference = fs::absolute(reference);
  }
  if (repeat == 0) repeat = mode == "versus" ? 3 : 1;
  std::vector<uint32_t> threads;
  for (const std::string& t : split(thread_list)) threads.push_back(uint32_t(std::max(1, std::atoi(t.c_str()))));
  if (threads.empty()) threads = {1};
  o.perfect = memory == "perfect";
  o.lockstep = fs::canonical("/proc/self/exe").parent_path().parent_path() / "lockstep";
  // Removed on any exit, also by SIGINT/SIGTERM.
  const auto scratch = lockstep::bench::ScratchDir::make(workdir, "lockstep-sim-bench");
  if (!scratch) return 1;
  workdir = scratch->path();
  o.json = workdir / "stats.json";
  try {
    if (mode == "rss") {
      std::vector<uint64_t> sizes;
      for (const std::string& s : split(rss_sizes)) sizes.push_back(lockstep::parse_size(s));
      mode_rss(o, workdir, sizes);
      return 0;
    }
    if (mode == "segments") {
      mode_segments(o, workdir, split(workload_list), lockstep::parse_size(size), split(segment_list));
      return 0;
    }
    if (mode == "versus") {
      mode_versus(o, reference, workdir, lockstep::parse_size(size), threads, repeat, model);
      return 0;
    }
    std::vector<Trace> traces;
    const uint64_t n = lockstep::parse_size(size);
    for (const char* w : kWorkloads)
      traces.push_back({std::string(w) + " " + size_name(n), generate(o, workdir, w, n).string(), o.gpu});
    // (Each on its own architecture, from the text: the reading is timed too.)
    for (const lockstep::bench::SampleTrace& t : lockstep::bench::kSampleTraces)
      if (fs::exists(traces_dir / t.path))
        traces.push_back({std::string("real: ") + t.path, (traces_dir / t.path).string(), ""});
    if (mode == "speed") mode_speed(o, traces, threads);
    else mode_defaults(o, traces, *std::max_element(threads.begin(), threads.end()), repeat);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_throughput: %s\n", e.what());
    return 1;
  }
  return 0;
}
