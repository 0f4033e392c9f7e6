// vecadd: c[i] = a[i] + b[i] with a grid-stride loop, as
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + b[i];
// Every access is fully coalesced; only the tail of the array leaves lanes idle.
// Large sizes relaunch the kernel over the same buffers (a timed loop).
#include <algorithm>

#include "frontend/gen/rng.h"
#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kWarps = kThreads / 32;
constexpr uint64_t kMaxElements = uint64_t(1) << 30;  // 4 GB per array

struct VecAddProgram {
  Program p;
  uint32_t exit0, loop, ld_a, ld_b, st_c, back, exit1;

  explicit VecAddProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);                     // R1 = c[0x0][0x28] (stack)
    p.op("S2R", {0}, {});               // R0 = SR_CTAID.X
    p.op("S2R", {3}, {});               // R3 = SR_TID.X
    p.op("IMAD", {0}, {0, 3});          // i = ctaid * ntid + tid
    p.op("ISETP.GE.AND", {}, {0});      // P0 = i >= n
    exit0 = p.exit();                   // @P0 EXIT
    p.mov_param(8);                     // R8 = ntid
    if (isa.ampere()) p.op("ULDC.64", {}, {});
    p.op("IMAD", {8}, {8, RZ});         // stride = ntid * nctaid
    if (isa.ampere())
      p.op("HFMA2.MMA", {7}, {RZ, RZ});  // R7 = 4
    else
      p.mov_imm(7, 4);
    loop = p.here();
    p.op("IMAD.WIDE", {2}, {0, 7});     // &a[i]
    p.op("IMAD.WIDE", {4}, {0, 7});     // &b[i]
    ld_a = p.ld(isa.ldg(4), 2, 2, 4);
    ld_b = p.ld(isa.ldg(4), 5, 4, 4);
    p.op("IMAD.WIDE", {6}, {0, 7});     // &c[i]
    p.op("IADD3", {0}, {8, 0, RZ});     // i += stride
    p.op("ISETP.GE.AND", {}, {0});
    p.op("FADD", {9}, {2, 5});
    st_c = p.st(isa.stg(4), 6, 9, 4);
    back = p.bra(loop);                 // @!P0 BRA loop
    exit1 = p.exit();
    p.finalize();
  }
  uint64_t per_warp(uint64_t iters) const { return loop + iters * (back - loop + 1) + 1; }
};

struct Buffers {
  uint64_t a, b, c, n, threads;
};

// Lanes whose element index i0 + lane is below n.
uint32_t in_range(uint64_t i0, uint64_t n) { return i0 >= n ? 0 : lanes_below(uint32_t(std::min<uint64_t>(n - i0, 32))); }

void emit_warp(const VecAddProgram& v, WarpWriter& w, const Buffers& buf, uint64_t g0) {
  w.run(0, v.exit0, kFullMask);
  uint32_t act = in_range(g0, buf.n);
  w.op(v.exit0, ~act);
  if (!act) return;
  w.run(v.exit0 + 1, v.loop, act);
  for (uint64_t i0 = g0;; i0 += buf.threads) {
    w.run(v.loop, v.ld_a, act);
    w.mem_lin(v.ld_a, act, buf.a + 4 * i0, 4);
    w.mem_lin(v.ld_b, act, buf.b + 4 * i0, 4);
    w.run(v.ld_b + 1, v.st_c, act);
    w.mem_lin(v.st_c, act, buf.c + 4 * i0, 4);
    const uint32_t cont = act & in_range(i0 + buf.threads, buf.n);
    w.op(v.back, cont);
    if (act & ~cont) w.op(v.exit1, act & ~cont);
    act = cont;
    if (!act) break;
  }
}

}  // namespace

void generate_vecadd(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const VecAddProgram v(o.arch);
  Rng rng(o.seed, 1);

  // Small sizes: one element per thread over as many blocks as the size buys.
  // Larger: a grid-stride launch of 32 blocks per SM, and more iterations.
  const uint64_t max_grid = uint64_t(o.sms) * 32;
  const LoopGrid shape = size_loop_grid(o.size, max_grid, kWarps, v.per_warp(0), v.per_warp(1));
  const uint64_t grid = shape.grid;
  uint64_t iters = shape.iters;
  const uint64_t threads = grid * kThreads;
  const uint64_t max_iters = std::max<uint64_t>(1, kMaxElements / threads);
  const uint64_t launches = split_into_launches(iters, max_iters);
  // A problem size that is not a multiple of the grid: the last pass is ragged.
  const uint64_t n = threads * iters - rng.below(std::min<uint64_t>(threads / 4, 4096) + 1);

  Buffers buf{};
  buf.n = n;
  buf.threads = threads;
  buf.a = trace.alloc(4 * n);
  buf.b = trace.alloc(4 * n);
  buf.c = trace.alloc(4 * n);
  trace.memcpy_htod(buf.a, 4 * n);
  trace.memcpy_htod(buf.b, 4 * n);

  const LaunchSpec spec{"_Z6vecAddPKfS0_Pfi", Dim3{uint32_t(grid), 1, 1}, Dim3{kThreads, 1, 1}, 0};
  for (uint64_t k = 0; k < launches; ++k) {
    KernelWriter kw(trace, spec, v.p);
    for (uint32_t b = 0; b < grid; ++b) {
      kw.begin_block(Dim3{b, 0, 0});
      for (uint32_t w = 0; w < kWarps; ++w) {
        WarpWriter ww = kw.warp(w);
        emit_warp(v, ww, buf, uint64_t(b) * kThreads + w * 32);
      }
      kw.end_block();
    }
    kw.close();
  }
}

}  // namespace lockstep::gen
