// stream_copy: the DRAM bandwidth kernel of STREAM "Copy" with float4 elements,
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) dst[i] = src[i];
// One LDG.E.128 and one STG.E.128 per thread and iteration; a warp moves 512
// contiguous bytes each way (4 full 128 B lines), so every access is fully
// coalesced. The grid fills the GPU (8 blocks of 256 threads per SM: 64 warps,
// the most a Volta/Ampere SM holds) and n is a whole number of grid passes,
// so no lane is ever idle. Every element is touched once: with a footprint far
// larger than the L2 (the size sets it: about 73 B per warp instruction and
// array), the copy streams from and to DRAM. Large sizes relaunch the kernel
// over the same buffers.
#include <algorithm>

#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kWarps = kThreads / 32;
constexpr uint32_t kBlocksPerSm = 8;
constexpr uint32_t kElementBytes = 16;                // float4
constexpr uint64_t kMaxElements = uint64_t(1) << 26;  // 1 GB per array

struct StreamCopyProgram {
  Program p;
  uint32_t exit0, loop, ld, st, back, exit1;

  explicit StreamCopyProgram(uint32_t sm) : p(sm) {
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
      p.op("HFMA2.MMA", {7}, {RZ, RZ});  // R7 = 16
    else
      p.mov_imm(7, kElementBytes);
    loop = p.here();
    p.op("IMAD.WIDE", {2}, {0, 7});     // &src[i]
    p.op("IMAD.WIDE", {4}, {0, 7});     // &dst[i]
    ld = p.ld(isa.ldg(kElementBytes), 12, 2, kElementBytes);  // R12..R15 = src[i]
    p.op("IADD3", {0}, {8, 0, RZ});     // i += stride
    p.op("ISETP.GE.AND", {}, {0});      // P0 = i >= n
    st = p.st(isa.stg(kElementBytes), 4, 12, kElementBytes);  // dst[i] = R12..R15
    back = p.bra(loop);                 // @!P0 BRA loop
    exit1 = p.exit();
    p.finalize();
  }
  uint64_t per_warp(uint64_t iters) const { return loop + iters * (back - loop + 1) + 1; }
};

struct Buffers {
  uint64_t src, dst, n, threads;
};

void emit_warp(const StreamCopyProgram& c, WarpWriter& w, const Buffers& buf, uint64_t g0) {
  // n is a multiple of the thread count: every lane runs every pass.
  w.run(0, c.exit0, kFullMask);
  w.op(c.exit0, 0);
  w.run(c.exit0 + 1, c.loop, kFullMask);
  for (uint64_t i0 = g0;; i0 += buf.threads) {
    w.run(c.loop, c.ld, kFullMask);
    w.mem_lin(c.ld, kFullMask, buf.src + kElementBytes * i0, kElementBytes);
    w.run(c.ld + 1, c.st, kFullMask);
    w.mem_lin(c.st, kFullMask, buf.dst + kElementBytes * i0, kElementBytes);
    const bool more = i0 + buf.threads < buf.n;
    w.op(c.back, more ? kFullMask : 0);
    if (!more) break;
  }
  w.op(c.exit1, kFullMask);
}

}  // namespace

void generate_stream_copy(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const StreamCopyProgram c(o.arch);

  // Small sizes: one element per thread over as many blocks as the size buys.
  // Larger: the full grid, and more passes.
  const uint64_t max_grid = uint64_t(o.sms) * kBlocksPerSm;
  const LoopGrid shape = size_loop_grid(o.size, max_grid, kWarps, c.per_warp(0), c.per_warp(1));
  const uint64_t grid = shape.grid;
  uint64_t iters = shape.iters;
  const uint64_t threads = grid * kThreads;
  const uint64_t max_iters = std::max<uint64_t>(1, kMaxElements / threads);
  const uint64_t launches = split_into_launches(iters, max_iters);

  Buffers buf{};
  buf.n = threads * iters;
  buf.threads = threads;
  buf.src = trace.alloc(kElementBytes * buf.n);
  buf.dst = trace.alloc(kElementBytes * buf.n);
  trace.memcpy_htod(buf.src, kElementBytes * buf.n);

  const LaunchSpec spec{"_Z10streamCopyPK6float4PS_i", Dim3{uint32_t(grid), 1, 1}, Dim3{kThreads, 1, 1}, 0};
  for (uint64_t k = 0; k < launches; ++k) {
    KernelWriter kw(trace, spec, c.p);
    for (uint32_t b = 0; b < grid; ++b) {
      kw.begin_block(Dim3{b, 0, 0});
      for (uint32_t w = 0; w < kWarps; ++w) {
        WarpWriter ww = kw.warp(w);
        emit_warp(c, ww, buf, uint64_t(b) * kThreads + w * 32);
      }
      kw.end_block();
    }
    kw.close();
  }
}

}  // namespace lockstep::gen
