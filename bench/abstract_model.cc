// The abstract timing model against the cycle model on the same traces and
// config: per kernel the cycles of both and the abstract model's error, with
// perfect memory (the fairest check of the pipeline abstraction) and with
// the full memory system; then the mean absolute error, the worst kernel,
// and the speed of both (one thread, pre-characterisation included).
//
// usage: abstract_model [--size 1M] [--workdir DIR] [--threads N] [--only perfect|full]
//   --size     warp instructions per generated workload (default 1M)
//   --threads  threads of the abstract model's speed run (default 1; the comparison is on 1)
//   --only     one memory mode
// Cases: every generated workload (lockstep gen, QV100) and every sample
// trace in ../shared/traces on its architecture's config, all converted to .lst.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "configs/spec/gpu_config.h"
#include "frontend/convert/converter.h"
#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "parallel/simulation.h"

namespace fs = std::filesystem;
using namespace lockstep;

namespace {

constexpr const char* kUsage =
    "usage: abstract_model [--size 1M] [--workdir DIR] [--threads N] [--only perfect|full]\n"
    "Runs the cycle and the abstract model on the generated workloads (QV100) and the sample traces,\n"
    "prints per-kernel cycles and errors, mean absolute error, worst kernel, and speeds.\n";

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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--size") size = parse_size(v);
    else if (k == "--workdir") workdir = v;
    else if (k == "--threads") threads = uint32_t(std::stoul(v));
    else if (k == "--only") only = v;
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
  const fs::path shared = fs::path(LOCKSTEP_SOURCE_DIR) / ".." / "shared" / "traces";
  const std::pair<const char*, const char*> samples[] = {{"vectoradd-sm80", "A100"},   {"bfs-rodinia-sm80", "A100"},
                                                         {"matrixmul-sm61", "GTX1080"}, {"flashinfer-gemm-sm80/traces", "A100"},
                                                         {"lud-kernel8-sm70", "QV100"}, {"ffma-4096-16-h100", "H100"}};
  for (const auto& [trace, gpu] : samples) {
    if (!fs::exists(shared / trace)) continue;
    std::string name = trace;
    name = name.substr(0, name.find('/'));
    cases.push_back({name, scratch.path() / (name + ".lst"), gpu});
    convert_text_trace(shared / trace, cases.back().lst);
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
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "abstract_model: %s\n", e.what());
  return 1;
}
