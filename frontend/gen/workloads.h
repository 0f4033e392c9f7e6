#pragma once
// The workload generators and their registration table. Each generator plans
// its launches from the options (size, seed, SM count, arch), declares its
// buffers and memcpys, and streams its kernels through a TraceBuilder.
#include <algorithm>
#include <cstdint>
#include <span>

#include "frontend/gen/trace_builder.h"

namespace lockstep::gen {

struct Workload {
  const char* name;
  const char* summary;
  void (*generate)(TraceBuilder& trace);
  // A microbenchmark to fit a config to a GPU (one warp or empty blocks: a
  // latency or a fixed cost, not a workload's throughput).
  bool microbenchmark = false;
};

void generate_vecadd(TraceBuilder& trace);
void generate_stencil2d(TraceBuilder& trace);
void generate_gemm(TraceBuilder& trace);
void generate_graph(TraceBuilder& trace);
void generate_reduce(TraceBuilder& trace);
void generate_stream_copy(TraceBuilder& trace);
void generate_l2_read(TraceBuilder& trace);
void generate_l1_read(TraceBuilder& trace);
void generate_ffma_chain(TraceBuilder& trace);
void generate_pchase_l1(TraceBuilder& trace);
void generate_pchase_l2(TraceBuilder& trace);
void generate_pchase_dram(TraceBuilder& trace);
void generate_pchase_shared(TraceBuilder& trace);
void generate_empty_kernel(TraceBuilder& trace);

// Every workload, in the order `lockstep gen --help` lists them.
std::span<const Workload> workloads();

// Helpers shared by the workloads.
inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint64_t round_div(uint64_t a, uint64_t b) { return (a + b / 2) / b; }

// Sizing of a loop kernel whose warps run per_warp0 + iters * (per_warp1 -
// per_warp0) warp instructions: small sizes run one iteration on as many
// blocks as the size buys; larger ones the full grid (`max_grid` blocks of
// `warps` warps) and as many iterations as make up the size.
struct LoopGrid {
  uint64_t grid = 1;
  uint64_t iters = 1;
};
inline LoopGrid size_loop_grid(uint64_t size, uint64_t max_grid, uint64_t warps, uint64_t per_warp0,
                               uint64_t per_warp1) {
  if (size <= max_grid * warps * per_warp1) return {std::max<uint64_t>(1, round_div(size, warps * per_warp1)), 1};
  const uint64_t per_warp = size / (max_grid * warps);
  return {max_grid, std::max<uint64_t>(1, round_div(per_warp - std::min(per_warp, per_warp0), per_warp1 - per_warp0))};
}

// Iterations beyond `max_iters` are split over relaunches of the kernel;
// returns the launch count and rounds `iters` to the iterations per launch.
inline uint64_t split_into_launches(uint64_t& iters, uint64_t max_iters) {
  if (iters <= max_iters) return 1;
  const uint64_t launches = ceil_div(iters, max_iters);
  iters = std::max<uint64_t>(1, round_div(iters, launches));
  return launches;
}

}  // namespace lockstep::gen
