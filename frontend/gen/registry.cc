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
    // Microbenchmarks to fit a config to a GPU (trace and profile them there): --size is
    // the FFMAs, the loads or the blocks.
    {"ffma_chain", "latency: one warp, --size dependent FFMAs (32 per loop iteration)", generate_ffma_chain, true},
    {"pchase_l1", "latency: one thread chasing --size pointers over 4 KB, L1D hits after the first pass",
     generate_pchase_l1, true},
    {"pchase_l2", "latency: one thread chasing --size pointers over 1 MB (copied in), L1D misses, L2 hits",
     generate_pchase_l2, true},
    {"pchase_dram", "latency: one thread chasing --size pointers over 1 GB (not copied), misses to DRAM",
     generate_pchase_dram, true},
    {"pchase_shared", "latency: one warp chasing --size dependent shared-memory loads, no bank conflicts",
     generate_pchase_shared, true},
    {"empty_kernel", "kernel-level costs: --size blocks of one warp that only EXIT (launch.*)",
     generate_empty_kernel, true},
};

}  // namespace

std::span<const Workload> workloads() { return kWorkloads; }

}  // namespace lockstep::gen
