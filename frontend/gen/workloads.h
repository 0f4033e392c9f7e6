#pragma once
// The workload generators and their registration table. Each generator plans
// its launches from the options (size, seed, SM count, arch), declares its
// buffers and memcpys, and streams its kernels through a TraceBuilder.
#include <cstdint>
#include <span>

#include "frontend/gen/trace_builder.h"

namespace lockstep::gen {

struct Workload {
  const char* name;
  const char* summary;
  void (*generate)(TraceBuilder& trace);
};

void generate_vecadd(TraceBuilder& trace);
void generate_stencil2d(TraceBuilder& trace);
void generate_gemm(TraceBuilder& trace);
void generate_graph(TraceBuilder& trace);
void generate_reduce(TraceBuilder& trace);
void generate_stream_copy(TraceBuilder& trace);
void generate_l2_read(TraceBuilder& trace);
void generate_l1_read(TraceBuilder& trace);

// Every workload, in the order `lockstep gen --help` lists them.
std::span<const Workload> workloads();

// Helpers shared by the workloads.
inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint64_t round_div(uint64_t a, uint64_t b) { return (a + b / 2) / b; }

}  // namespace lockstep::gen
