// pchase_shared: the shared-memory latency microbenchmark, one warp that
// builds a ring of byte offsets in shared memory (lane l writes the offset of
// word l + 1) and then follows it (each load's address is the value the load
// before returned), unrolled 8 per loop iteration:
//   __shared__ uint32_t ring[32];
//   ring[tid] = ((tid + 1) % 32) * 4;
//   __syncwarp();
//   uint32_t p = tid * 4;
//   for (int i = 0; i < iters; ++i)
//     #pragma unroll
//     for (int j = 0; j < 8; ++j) p = *(uint32_t*)((char*)ring + p);
//   out[tid] = p;
// `--size` dependent warp loads in all; the 32 lanes always read 32 different
// banks, so no load has a bank conflict. Shared memory has no cache in front
// of it, so the ring's size does not matter. Traced and profiled on a GPU, its
// cycles per load pin sm.shared_latency.
#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kUnroll = 8;
constexpr uint32_t kRingBytes = 32 * 4;

struct SharedChaseProgram {
  Program p;
  uint32_t fill, loop, first_ld, back, st, exit;

  explicit SharedChaseProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);                          // R1 = c[0x0][0x28] (stack)
    p.op("S2R", {0}, {});                    // R0 = tid
    p.op("IADD3", {2}, {0, RZ, RZ}, 1);      // R2 = tid + 1
    p.op("LOP3.LUT", {2}, {2, RZ, RZ}, 31);  // R2 = (tid + 1) % 32
    p.op("SHF.L.U32", {2}, {2, RZ, RZ}, 2);  // R2 = ((tid + 1) % 32) * 4
    p.op("SHF.L.U32", {3}, {0, RZ, RZ}, 2);  // R3 = tid * 4
    fill = p.st(isa.sts(4), 3, 2, 4);        // ring[tid] = R2
    p.op("WARPSYNC", {}, {});
    p.op("MOV", {2}, {3});                   // p = tid * 4
    p.mov_imm(7, 0);                         // i = 0
    loop = p.here();
    first_ld = p.ld(isa.lds(4), 2, 2, 4);    // p = ring[p] (R2)
    for (uint32_t j = 1; j < kUnroll; ++j) p.ld(isa.lds(4), 2, 2, 4);
    p.op("IADD3", {7}, {7, RZ, RZ}, 1);      // ++i
    p.op("ISETP.GE.AND", {}, {7});           // P0 = i >= iters
    back = p.bra(loop);                      // @!P0 BRA loop
    p.mov_param(4);                          // R4:R5 = out
    p.mov_param(5);
    if (isa.ampere()) p.op("ULDC.64", {}, {});
    p.op("IMAD.WIDE.U32", {4}, {3, RZ, 4});  // R4:R5 = out + tid * 4
    st = p.st(isa.stg(4), 4, 2, 4);
    exit = p.exit();
    p.finalize();
  }
};

}  // namespace

void generate_pchase_shared(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const SharedChaseProgram r(o.arch);
  const uint64_t iters = std::max<uint64_t>(1, round_div(o.size, kUnroll));
  const uint64_t out = trace.alloc(32 * 4);
  KernelWriter kw(trace, LaunchSpec{"_Z12pchaseSharedPji", Dim3{1, 1, 1}, Dim3{32, 1, 1}, kRingBytes}, r.p);
  kw.begin_block(Dim3{0, 0, 0});
  WarpWriter w = kw.warp(0);
  w.run(0, r.fill, kFullMask);
  w.mem_lin(r.fill, kFullMask, 0, 4);
  w.run(r.fill + 1, r.loop, kFullMask);
  uint64_t step = 0;  // loads done: lane l reads word (l + step) % 32
  for (uint64_t i = 0; i < iters; ++i) {
    for (uint32_t j = 0; j < kUnroll; ++j, ++step)
      w.mem(r.first_ld + j, kFullMask, [&](uint32_t lane) { return (lane + step) % 32 * 4; });
    w.run(r.first_ld + kUnroll, r.back, kFullMask);
    w.op(r.back, i + 1 < iters ? kFullMask : 0);
  }
  w.run(r.back + 1, r.st, kFullMask);
  w.mem_lin(r.st, kFullMask, out, 4);
  w.op(r.exit, kFullMask);
  kw.end_block();
  kw.close();
}

}  // namespace lockstep::gen
