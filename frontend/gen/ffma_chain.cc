// ffma_chain: the latency microbenchmark of the FP32 pipeline, one warp of one
// block running `--size` dependent FFMAs (each reads the result of the one
// before), unrolled 32 per loop iteration:
//   float a = 1.0f, b = 0.999f;
//   for (int i = 0; i < iters; ++i)
//     #pragma unroll
//     for (int j = 0; j < 32; ++j) a = a * b + a;
//   out[0] = a;
// Its cycles are about FFMAs x the FFMA latency plus the kernel's fixed costs
// (launch.*): traced and profiled on a GPU, it pins unit.SP.latency.
#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kUnroll = 32;

struct FfmaChainProgram {
  Program p;
  uint32_t loop, back, st, exit;

  explicit FfmaChainProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);                          // R1 = c[0x0][0x28] (stack)
    p.mov_imm(0, 0x3f800000);                // a = 1.0f
    p.mov_imm(3, 0x3f7fbe77);                // b = 0.999f
    p.mov_imm(7, 0);                         // i = 0
    loop = p.here();
    for (uint32_t j = 0; j < kUnroll; ++j) p.op("FFMA", {0}, {0, 3, 0});  // a = a * b + a
    p.op("IADD3", {7}, {7, RZ, RZ}, 1);      // ++i
    p.op("ISETP.GE.AND", {}, {7});           // P0 = i >= iters
    back = p.bra(loop);                      // @!P0 BRA loop
    p.mov_param(4);                          // R4:R5 = out
    p.mov_param(5);
    if (isa.ampere()) p.op("ULDC.64", {}, {});
    st = p.st(isa.stg(4), 4, 0, 4);
    exit = p.exit();
    p.finalize();
  }
};

}  // namespace

void generate_ffma_chain(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const FfmaChainProgram r(o.arch);
  const uint64_t iters = std::max<uint64_t>(1, round_div(o.size, kUnroll));
  const uint64_t out = trace.alloc(4);
  KernelWriter kw(trace, LaunchSpec{"_Z9ffmaChainPfi", Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, r.p);
  kw.begin_block(Dim3{0, 0, 0});
  WarpWriter w = kw.warp(0);
  w.run(0, r.loop, kFullMask);
  for (uint64_t i = 0; i < iters; ++i) {
    w.run(r.loop, r.back, kFullMask);
    w.op(r.back, i + 1 < iters ? kFullMask : 0);
  }
  w.run(r.back + 1, r.st, kFullMask);
  w.mem_lin(r.st, 1, out, 4);
  w.op(r.exit, kFullMask);
  kw.end_block();
  kw.close();
}

}  // namespace lockstep::gen
