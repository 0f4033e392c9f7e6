// The abstract timing model against the cycle model on the same traces and
// config: per kernel the cycles of both and the abstract model's error, with
// perfect memory (the fairest check of the pipeline abstraction) and with
// the full memory system; then the mean absolute error, the worst kernel,
// and the speed of both (one thread, pre-characterisation included).
//
// usage: abstract_model [--size 1M] [--workdir DIR] [--threads N] [--only perfect|full] [--rss-scale N]
//   --size       warp instructions per generated workload (default 1M)
//   --threads    threads of the abstract model's speed run (default 1; the comparison is on 1)
//   --only       one memory mode
//   --rss-scale  also peak RSS and time of `lockstep run --model abstract` on vecadd and stencil2d at
//                1M and N x 1M warp instructions, kernels read twice (the default above 32M warp
//                instructions) and read once (--read-twice-above 2^64-1); 0 (default): not measured
// Cases: every generated workload (lockstep gen, QV100) and every sample
// trace in ../shared/traces on its architecture's config, all converted to .lst.
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_support.h"
#include "bench/sample_traces.h"
#include "configs/spec/gpu_config.h"
#include "frontend/convert/converter.h"
#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "parallel/simulation.h"

namespace fs = std::filesystem;
using namespace lockstep;

namespace {

constexpr const char* kUsage =
    "usage: abstract_model [--size 1M] [--workdir DIR] [--threads N] [--only perfect|full] [--rss-scale N]\n"
    "Runs the cycle and the abstract model on the generated workloads (QV100) and the sample traces,\n"
    "prints per-kernel cycles and errors, mean absolute error, worst kernel, and speeds; with --rss-scale N\n"
    "also peak RSS against trace length (1M and N x 1M warp instructions), kernels read twice and once.\n";

uint64_t parse_size(const std::string& s) {
  double v = std::stod(s);
  if (!s.empty() && (s.back() == 'M' || s.back() == 'm')) v *= 1e6;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'k')) v *= 1e3;
  return uint64_t(v);
}

struct Case {
  std::string name;
  fs::path lst;
  std::string gpu;
};

SimulationReport run(const Case& c, const std::string& model, bool perfect, uint32_t threads) {
  auto trace = open_trace(c.lst, nullptr);
  const GpuSpec spec = load_gpu_spec(c.gpu, {});
  RunOptions o;
  o.model = model;
  o.memory_model = perfect ? "perfect" : "cycle";
  o.engine.threads = threads;
  o.warn = nullptr;
  return simulate(*trace, spec, o);
}

// Peak RSS (MB) and wall seconds of `lockstep run LST --model abstract` on QV100 with `extra` arguments.
std::pair<double, double> rss_run(const fs::path& lockstep, const fs::path& lst, const std::vector<std::string>& extra) {
  const fs::path json = lst.string() + ".json";
  std::vector<std::string> argv = {lockstep.string(), "run", lst.string(), "--model", "abstract", "--gpu", "QV100",
                                   "--quiet", "--stats-json", json.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  rusage usage{};
  const auto start = std::chrono::steady_clock::now();
  const int status = bench::run_child(argv, &usage);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("lockstep run " + lst.string() + " failed");
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(json);
  return {bench::child_peak_rss_mb(text, usage), wall};
}

uint64_t insts(const SimulationReport& r) {
  uint64_t n = 0;
  for (const KernelReport& k : r.kernels) n += k.stats.warp_insts;
  return n;
}

}  // namespace

int main(int argc, char** argv) try {
  if (bench::wants_help(argc, argv, kUsage)) return 0;
  uint64_t size = 1'000'000;
  uint32_t threads = 1;
  fs::path workdir = fs::temp_directory_path();
  std::string only;
  uint32_t rss_scale = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--size") size = parse_size(v);
    else if (k == "--workdir") workdir = v;
    else if (k == "--threads") threads = uint32_t(std::stoul(v));
    else if (k == "--only") only = v;
    else if (k == "--rss-scale") rss_scale = uint32_t(std::stoul(v));
    else {
      std::fprintf(stderr, "abstract_model: unknown option %s\n%s", k.c_str(), kUsage);
      return 2;
    }
  }
  const std::unique_ptr<bench::ScratchDir> scratch_dir = bench::ScratchDir::make(workdir, "lockstep-abstract-bench");
  if (!scratch_dir) return 1;
  const bench::ScratchDir& scratch = *scratch_dir;
  std::vector<Case> cases;
  for (const std::string& w : workload_names()) {
    GenOptions g;
    g.workload = w;
    g.size = size;
    g.sms = 80;
    const fs::path dir = scratch.path() / w;
    generate_trace(g, dir);
    cases.push_back({w, scratch.path() / (w + ".lst"), "QV100"});
    convert_text_trace(dir, cases.back().lst);
  }
  const fs::path shared = bench::sample_traces_dir(LOCKSTEP_SOURCE_DIR);
  for (const bench::SampleTrace& t : bench::kSampleTraces) {
    if (!fs::exists(shared / t.path)) continue;
    const std::string name = bench::sample_name(t);
    cases.push_back({name, scratch.path() / (name + ".lst"), t.gpu});
    convert_text_trace(shared / t.path, cases.back().lst);
  }

  for (bool perfect : {true, false}) {
    if ((only == "perfect" && !perfect) || (only == "full" && perfect)) continue;
    const char* mode = perfect ? "perfect memory" : "full memory";
    std::printf("\n## %s\n\n| trace | kernel | cycle model | abstract | error |\n|---|---|---|---|---|\n", mode);
    double abs_sum = 0, worst = -1;
    size_t kernels = 0;
    std::string worst_name;
    double cycle_wall = 0, abstract_wall = 0, pre_seconds = 0;
    uint64_t total_insts = 0;
    std::vector<std::string> speed_rows;
    for (const Case& c : cases) {
      const SimulationReport cyc = run(c, "cycle", perfect, 1);
      const SimulationReport abs = run(c, "abstract", perfect, 1);
      for (size_t k = 0; k < cyc.kernels.size() && k < abs.kernels.size(); ++k) {
        const double ref = double(cyc.kernels[k].cycles), est = double(abs.kernels[k].cycles);
        const double err = ref > 0 ? (est - ref) / ref : 0;
        std::printf("| %s | %u | %llu | %llu | %+.1f%% |\n", c.name.c_str(), cyc.kernels[k].kernel_id,
                    (unsigned long long)ref, (unsigned long long)est, 100 * err);
        abs_sum += std::fabs(err);
        ++kernels;
        if (std::fabs(err) > worst) {
          worst = std::fabs(err);
          worst_name = c.name + " kernel " + std::to_string(cyc.kernels[k].kernel_id);
        }
      }
      cycle_wall += cyc.wall_seconds;
      abstract_wall += abs.wall_seconds;
      pre_seconds += abs.precharacterisation_seconds;
      total_insts += insts(abs);
      char row[256];
      std::snprintf(row, sizeof row, "| %s | %llu | %.2f | %.2f | %.1fx | %.4f |", c.name.c_str(),
                    (unsigned long long)insts(abs), insts(cyc) / cyc.wall_seconds / 1e6,
                    insts(abs) / abs.wall_seconds / 1e6, cyc.wall_seconds / abs.wall_seconds,
                    abs.precharacterisation_seconds);
      speed_rows.push_back(row);
    }
    std::printf("\n%s: mean absolute kernel-cycle error %.1f%% over %zu kernels; worst %s (%.1f%%)\n", mode,
                100 * abs_sum / double(std::max<size_t>(kernels, 1)), kernels, worst_name.c_str(), 100 * worst);
    std::printf("\n| trace | warp insts | cycle M/s | abstract M/s (1 thread) | speedup | pre-char s |\n|---|---|---|---|---|---|\n");
    for (const std::string& r : speed_rows) std::printf("%s\n", r.c_str());
    std::printf("\n%s, all traces: abstract %.2f M warp insts/s on 1 thread (pre-characterisation %.3f s of %.3f s), "
                "%.1fx the cycle model's %.2f M/s\n",
                mode, total_insts / abstract_wall / 1e6, pre_seconds, abstract_wall, cycle_wall / abstract_wall,
                total_insts / cycle_wall / 1e6);
    if (threads > 1) {
      double wall = 0;
      for (const Case& c : cases) wall += run(c, "abstract", perfect, threads).wall_seconds;
      std::printf("%s, all traces: abstract %.2f M warp insts/s on %u threads\n", mode, total_insts / wall / 1e6, threads);
    }
  }
  if (rss_scale > 0) {
    // Peak RSS against trace length: stencil2d grows by more blocks of the
    // same length, vecadd (grid-stride, one kernel) by longer blocks.
    const fs::path lockstep = fs::canonical("/proc/self/exe").parent_path().parent_path() / "lockstep";
    std::printf("\n## peak RSS against trace length (full memory, QV100, one thread)\n\n"
                "| trace | warp insts | read twice (default) MB | s | read once MB | s |\n|---|---|---|---|---|---|\n");
    for (const char* w : {"stencil2d", "vecadd"}) {
      for (uint32_t scale : {1u, rss_scale}) {
        GenOptions g;
        g.workload = w;
        g.size = uint64_t(1'000'000) * scale;
        g.sms = 80;
        const fs::path dir = scratch.path() / (std::string(w) + "-rss");
        const fs::path lst = scratch.path() / (std::string(w) + "-rss.lst");
        generate_trace(g, dir);
        convert_text_trace(dir, lst);
        fs::remove_all(dir);
        const auto [twice_mb, twice_s] = rss_run(lockstep, lst, {});
        const auto [once_mb, once_s] = rss_run(lockstep, lst, {"--read-twice-above", "18446744073709551615"});
        uint64_t warp_insts = 0;
        {
          const auto trace = open_trace(lst, nullptr);
          for (uint32_t k = 0; k < trace->manifest().kernels.size(); ++k) warp_insts += trace->summarize(k).warp_insts;
        }
        std::printf("| %s %uM | %llu | %.1f | %.2f | %.1f | %.2f |\n", w, scale, (unsigned long long)warp_insts,
                    twice_mb, twice_s, once_mb, once_s);
        fs::remove(lst);
      }
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "abstract_model: %s\n", e.what());
  return 1;
}
