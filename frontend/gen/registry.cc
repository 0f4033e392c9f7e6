// The explicit table of workloads (no self-registration at static init).
#include "frontend/gen/workloads.h"

namespace lockstep::gen {

namespace {

constexpr Workload kWorkloads[] = {
    {"vecadd", "streaming vector add c = a + b, grid-stride, fully coalesced", generate_vecadd},
    {"stencil2d", "5-point Jacobi stencil on a 2-D grid, several sweeps, divergent boundaries", generate_stencil2d},
    {"gemm", "tiled SGEMM: LDG tiles -> STS -> BAR.SYNC -> LDS/FFMA loop, 4x4 register blocking",
     generate_gemm},
    {"graph", "level-synchronous BFS (Rodinia style) over a seeded random CSR graph, gathers and divergence",
     generate_graph},
    {"reduce", "shared-memory tree reduction, one RED per block, last block finishes with ATOMG ticket",
     generate_reduce},
    {"stream_copy", "bandwidth: float4 copy dst = src, grid-stride, coalesced, each element once (DRAM-bound when large)",
     generate_stream_copy},
    {"l2_read", "bandwidth: float4 loads rotating over a 1 MB buffer, > L1D and < L2 (L2-bound)", generate_l2_read},
    {"l1_read", "bandwidth: float4 loads re-reading 16 KB per block, L1D-resident after one pass (L1-bound)",
     generate_l1_read},
};

}  // namespace

std::span<const Workload> workloads() { return kWorkloads; }

}  // namespace lockstep::gen
