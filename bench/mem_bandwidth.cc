// Memory bandwidth benchmark. Prints figures, asserts nothing.
//
// Generates the three bandwidth workloads of `lockstep gen` (stream_copy:
// DRAM-bound, l2_read: L2-bound, l1_read: L1D-bound), runs each through the
// simulator with the full memory system (L1D, crossbars, L2 slices, DRAM
// channels) by the library entry point simulate(), and prints for each the
// bandwidth attained at its level against the configured peak:
//
//   level  bytes moved (counter)                              peak
//   DRAM   (dram__sectors_read + dram__sectors_write) x 32 B   channels x bus_width/8 x data_rate x DRAM clock
//   L2     lts__t_sectors_op_read x 32 B                       slices x 32 B x L2 clock, and the reply crossbar:
//                                                              min(slices, clusters) x sector bytes per flit x icnt clock
//   L1D    l1tex__t_sectors_pipe_lsu_mem_global_op_ld x 32 B   SMs x l1d.banks x l1d.bank_bytes x core clock
//
// Time is the kernels' simulated cycles (gpc__cycles_elapsed summed over the
// launches, launch gaps excluded) at the core clock.
//
// usage: mem_bandwidth [--gpu QV100] [--size 1M] [--arch sm70|sm80] [--workload NAME] [--workdir DIR]
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "frontend/convert/open_trace.h"
#include "frontend/gen/workload_generator.h"
#include "memsys/mem_packet.h"
#include "configs/spec/gpu_config.h"
#include "parallel/simulation.h"

namespace fs = std::filesystem;
using namespace lockstep;

namespace {

struct Totals {
  uint64_t cycles = 0, warp_insts = 0;
  SmStats sm;
  MemoryStats mem;
  double wall = 0;
};

Totals run(const fs::path& trace_dir, const GpuSpec& spec) {
  auto trace = open_trace(trace_dir);
  RunOptions o;
  o.memory_model = "cycle";  // the L1D / crossbar / L2 / DRAM model
  o.warn = [](const std::string&) {};
  const auto start = std::chrono::steady_clock::now();
  const SimulationReport r = simulate(*trace, spec, o);
  Totals t;
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const KernelReport& k : r.kernels) {
    t.cycles += k.cycles;
    t.sm += k.stats;
    t.mem += k.memory;
  }
  t.warp_insts = t.sm.warp_insts;
  return t;
}

// Arch the generated trace is written for: Ampere and later GPUs get sm_80 SASS.
uint32_t default_arch(const std::string& gpu) {
  for (const char* a : {"A100", "H100", "RTX3070"})
    if (gpu.size() == std::string(a).size() && std::equal(gpu.begin(), gpu.end(), a, [](char x, char y) {
          return std::toupper(static_cast<unsigned char>(x)) == y;
        }))
      return 80;
  return 70;
}

void row(const char* workload, const char* level, double bytes, double seconds, double peak, const Totals& t,
         const std::string& note) {
  const double bw = seconds > 0 ? bytes / seconds : 0;
  std::printf("%-12s %-5s %12.0f %10llu %10.1f %10.1f %7.1f%% %8.2f  %s\n", workload, level, bytes / 1e6,
              (unsigned long long)t.cycles, bw / 1e9, peak / 1e9, peak > 0 ? 100.0 * bw / peak : 0.0, t.wall,
              note.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (lockstep::bench::wants_help(argc, argv,
                                  "usage: mem_bandwidth [--gpu QV100] [--size 1M] [--arch sm70|sm80] [--workload NAME] "
                                  "[--workdir DIR]\n"
                                  "Bandwidth attained by stream_copy (DRAM), l2_read (L2) and l1_read (L1D) against the "
                                  "configured peaks.\n"))
    return 0;
  std::string gpu = "QV100", size = "1M", arch, only;
  fs::path workdir = fs::temp_directory_path();
  if (argc % 2 == 0) {
    std::fprintf(stderr, "option %s needs a value (see --help)\n", argv[argc - 1]);
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--gpu") gpu = v;
    else if (k == "--size") size = v;
    else if (k == "--arch") arch = v;
    else if (k == "--workload") only = v;
    else if (k == "--workdir") workdir = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  // Removed on any exit, also by SIGINT/SIGTERM.
  const auto scratch = lockstep::bench::ScratchDir::make(workdir, "lockstep-bandwidth-bench");
  if (!scratch) return 1;
  workdir = scratch->path();
  try {
    const GpuSpec spec = load_gpu_spec(gpu);
    const MemorySpec& m = spec.memory;
    const ClockSpec& c = spec.clocks;
    const uint32_t clusters = spec.clusters();
    const uint32_t slices = m.l2_slices();
    // Sector bytes a reply flit carries: a data reply is a header plus a sector.
    const uint32_t reply_flits = (kPacketHeaderBytes + kPacketSectorBytes + m.icnt.flit_bytes - 1) / m.icnt.flit_bytes;
    const double dram_peak = double(m.dram.channels) * m.dram.bus_width_bits / 8 * m.dram.data_rate * c.dram_mhz * 1e6;
    const double l2_peak = double(slices) * 32 * c.l2_mhz * 1e6;
    const double xbar_peak =
        double(std::min(slices, clusters)) * (double(kPacketSectorBytes) / reply_flits) * c.icnt_mhz * 1e6;
    const double l1_peak = double(spec.sms) * m.l1d.banks * m.l1d.bank_bytes * c.core_mhz * 1e6;

    GenOptions g;
    g.size = parse_size(size);
    g.sms = spec.sms;
    g.arch = arch.empty() ? default_arch(gpu) : parse_arch(arch);
    std::printf("mem_bandwidth: GPU %s (%u SMs, %u L2 slices, %u DRAM channels; core %.0f, icnt %.0f, L2 %.0f, DRAM %.0f MHz), "
                "sm_%u traces of %s warp instructions, full memory system\n",
                spec.name.c_str(), spec.sms, slices, m.dram.channels, c.core_mhz, c.icnt_mhz, c.l2_mhz, c.dram_mhz,
                g.arch, size.c_str());
    std::printf("peaks: DRAM %.1f GB/s = %u ch x %u B x %u beats x %.0f MHz; L2 %.1f GB/s = %u slices x 32 B x %.0f MHz; "
                "reply crossbar %.1f GB/s = %u ports x %.1f B of sector per flit x %.0f MHz; "
                "L1D %.1f GB/s = %u SMs x %u banks x %u B x %.0f MHz\n",
                dram_peak / 1e9, m.dram.channels, m.dram.bus_width_bits / 8, m.dram.data_rate, c.dram_mhz,
                l2_peak / 1e9, slices, c.l2_mhz, xbar_peak / 1e9, std::min(slices, clusters),
                double(kPacketSectorBytes) / reply_flits, c.icnt_mhz, l1_peak / 1e9, spec.sms, m.l1d.banks,
                m.l1d.bank_bytes, c.core_mhz);
    std::printf("%-12s %-5s %12s %10s %10s %10s %8s %8s  %s\n", "workload", "level", "MB moved", "cycles", "GB/s",
                "peak GB/s", "of peak", "wall s", "notes");

    for (const char* w : {"stream_copy", "l2_read", "l1_read"}) {
      if (!only.empty() && only != w) continue;
      g.workload = w;
      const fs::path dir = workdir / w;
      generate_trace(g, dir);
      Totals t;
      try {
        t = run(dir, spec);
      } catch (const std::exception& e) {
        std::printf("%-12s FAILED: %s\n", w, e.what());
        fs::remove_all(dir);
        continue;
      }
      fs::remove_all(dir);
      const double seconds = double(t.cycles) / (c.core_mhz * 1e6);
      const auto pct = [](uint64_t part, uint64_t whole) { return whole ? 100.0 * double(part) / double(whole) : 0.0; };
      char note[256];
      const std::string name = w;
      if (name == "stream_copy") {
        std::snprintf(note, sizeof note, "read %llu + write %llu sectors; L2 read hit %.1f%%",
                      (unsigned long long)t.mem.dram.read_sectors, (unsigned long long)t.mem.dram.write_sectors,
                      pct(t.mem.l2.read_hits, t.mem.l2.read_sectors));
        row(w, "DRAM", 32.0 * double(t.mem.dram.read_sectors + t.mem.dram.write_sectors), seconds, dram_peak, t, note);
      } else if (name == "l2_read") {
        const bool xbar_binds = xbar_peak < l2_peak;
        std::snprintf(note, sizeof note, "peak: %s; L2 read hit %.1f%%, L1D hit %.1f%%",
                      xbar_binds ? "reply crossbar (below the slices' 32 B/cycle)" : "L2 slices x 32 B/cycle",
                      pct(t.mem.l2.read_hits, t.mem.l2.read_sectors), pct(t.sm.l1.global_ld_hit_sectors, t.sm.global_ld_sectors));
        row(w, "L2", 32.0 * double(t.mem.l2.read_sectors), seconds, std::min(l2_peak, xbar_peak), t, note);
      } else {
        std::snprintf(note, sizeof note, "L1D hit %.1f%%", pct(t.sm.l1.global_ld_hit_sectors, t.sm.global_ld_sectors));
        row(w, "L1D", 32.0 * double(t.sm.global_ld_sectors), seconds, l1_peak, t, note);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mem_bandwidth: %s\n", e.what());
    return 1;
  }
  return 0;
}
