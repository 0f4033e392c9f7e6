// pchase_l1 / pchase_l2 / pchase_dram: the load-latency microbenchmarks, one
// thread following a chain of pointers (each load's address is the value the
// load before returned), unrolled 8 per loop iteration:
//   uint64_t* p = chain;
//   for (int i = 0; i < iters; ++i)
//     #pragma unroll
//     for (int j = 0; j < 8; ++j) p = (uint64_t*)*p;
//   out[0] = (uint64_t)p;
// `--size` loads in all. The chain visits one 128-byte line per load, cycling
// over a footprint that decides where the loads hit:
//   pchase_l1:   4 KB (32 lines): after the first pass every load hits the L1D;
//   pchase_l2:   1 MB (8192 lines): more than any shipped L1D (at most 256 KB), so
//                cycling through it the L1D never hits; less than any shipped L2
//                (at least 2 MB), which the chain's copy (MemcpyHtoD) fills;
//   pchase_dram: 1 GB, more than any L2, never copied (nothing caches it), a
//                stride of 128 B + 64 KB so that consecutive loads open other rows.
// Traced and profiled on a GPU, their cycles per load pin l1d.hit_latency,
// l2.latency and the DRAM path.
#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kUnroll = 8;
constexpr uint64_t kLine = 128;

struct ChaseProgram {
  Program p;
  uint32_t loop, first_ld, back, st, exit;

  explicit ChaseProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);                          // R1 = c[0x0][0x28] (stack)
    p.mov_param(2);                          // R2:R3 = chain
    p.mov_param(3);
    if (isa.ampere()) p.op("ULDC.64", {}, {});
    p.mov_imm(7, 0);                         // i = 0
    loop = p.here();
    first_ld = p.ld(isa.ldg(8), 2, 2, 8);    // p = *p (R2:R3)
    for (uint32_t j = 1; j < kUnroll; ++j) p.ld(isa.ldg(8), 2, 2, 8);
    p.op("IADD3", {7}, {7, RZ, RZ}, 1);      // ++i
    p.op("ISETP.GE.AND", {}, {7});           // P0 = i >= iters
    back = p.bra(loop);                      // @!P0 BRA loop
    p.mov_param(4);                          // R4:R5 = out
    p.mov_param(5);
    st = p.st(isa.stg(8), 4, 2, 8);
    exit = p.exit();
    p.finalize();
  }
};

void generate_chase(TraceBuilder& trace, uint64_t footprint, uint64_t stride, bool copied, const char* name) {
  const GenOptions& o = trace.options();
  const ChaseProgram r(o.arch);
  const uint64_t iters = std::max<uint64_t>(1, round_div(o.size, kUnroll));
  const uint64_t chain = trace.alloc(footprint), out = trace.alloc(8);
  if (copied) trace.memcpy_htod(chain, footprint);
  KernelWriter kw(trace, LaunchSpec{name, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, r.p);
  kw.begin_block(Dim3{0, 0, 0});
  WarpWriter w = kw.warp(0);
  constexpr uint32_t kLane0 = 1;
  w.run(0, r.loop, kLane0);
  uint64_t offset = 0;
  for (uint64_t i = 0; i < iters; ++i) {
    for (uint32_t j = 0; j < kUnroll; ++j) {
      w.mem_lin(r.first_ld + j, kLane0, chain + offset, 0);
      offset = (offset + stride) % footprint;
    }
    w.run(r.first_ld + kUnroll, r.back, kLane0);
    w.op(r.back, i + 1 < iters ? kLane0 : 0);
  }
  w.run(r.back + 1, r.st, kLane0);
  w.mem_lin(r.st, kLane0, out, 0);
  w.op(r.exit, kLane0);
  kw.end_block();
  kw.close();
}

}  // namespace

void generate_pchase_l1(TraceBuilder& trace) { generate_chase(trace, 4096, kLine, true, "_Z8pchaseL1PmS_i"); }
void generate_pchase_l2(TraceBuilder& trace) { generate_chase(trace, 1u << 20, kLine, true, "_Z8pchaseL2PmS_i"); }
void generate_pchase_dram(TraceBuilder& trace) {
  generate_chase(trace, 1ull << 30, kLine + 65536, false, "_Z10pchaseDramPmS_i");
}

}  // namespace lockstep::gen
