#pragma once
// The sample traces (../shared/traces, Accel-Sim's text format) that the
// benchmarks run beside their generated workloads, each with the shipped GPU
// of its own architecture. Those missing from a checkout are skipped.
#include <filesystem>
#include <string>

namespace lockstep::bench {

struct SampleTrace {
  const char* path;  // under sample_traces_dir()
  const char* gpu;
};

inline constexpr SampleTrace kSampleTraces[] = {
    {"vectoradd-sm80", "A100"},   {"bfs-rodinia-sm80", "A100"},  {"matrixmul-sm61", "GTX1080"},
    {"flashinfer-gemm-sm80/traces", "A100"}, {"lud-kernel8-sm70", "QV100"}, {"ffma-4096-16-h100", "H100"},
};

// Where they are: beside the project (the binary's source tree names it).
inline std::filesystem::path sample_traces_dir(const std::filesystem::path& source_dir) {
  return source_dir / ".." / "shared" / "traces";
}

// A sample trace's name in tables: its path up to the first '/'.
inline std::string sample_name(const SampleTrace& t) {
  const std::string path = t.path;
  return path.substr(0, path.find('/'));
}

}  // namespace lockstep::bench
