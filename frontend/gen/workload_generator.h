#pragma once
// `lockstep gen`: synthetic Accel-Sim text traces of named workloads (vector
// add, 2-D stencil, tiled GEMM, BFS-like graph traversal, tree reduction),
// written as a real tracer (version 5) would write them. Output is a pure
// function of the options: the same options give byte-identical files.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep {

struct GenOptions {
  std::string workload;
  uint64_t size = 200'000;  // approximate total warp instructions
  uint64_t seed = 1;
  uint32_t sms = 80;   // SM count the grids are sized for
  uint32_t arch = 70;  // binary version: 70 (Volta) or 80 (Ampere)
};

struct GenSummary {
  uint32_t kernels = 0;
  uint64_t blocks = 0;
  uint64_t warp_insts = 0;
  uint64_t bytes = 0;  // all files written
};

// Writes kernelslist.g and kernel-N.traceg into `dir`, atomically: the files
// are written under a temporary name next to `dir` and renamed into place
// only on success (frontend/io/output_directory.h). An existing `dir` is
// replaced only if it is empty or holds nothing but a trace's files. Throws
// std::runtime_error on bad options or I/O failure.
GenSummary generate_trace(const GenOptions& options, const std::filesystem::path& dir);
// The checks generate_trace makes of `dir` before writing, creating nothing.
void check_gen_output(const std::filesystem::path& dir);

// Workload names, in registration order (the microbenchmarks apart).
std::vector<std::string> workload_names();
// The microbenchmarks to fit a config to a GPU (ffma_chain, pchase_*,
// empty_kernel), in registration order; generate_trace takes them as workloads.
std::vector<std::string> microbenchmark_names();
// One-line description of a workload ("" if unknown).
std::string workload_summary(std::string_view name);

// "200000", "200K", "5M", "1.5G" (K/M/G = 1e3/1e6/1e9, case-insensitive).
uint64_t parse_size(std::string_view text);
// "sm70", "sm_80", "70", "80" -> 70 or 80.
uint32_t parse_arch(std::string_view text);

}  // namespace lockstep
