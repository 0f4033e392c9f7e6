// l2_read: every SM streams float4 loads over one 1 MB buffer, a footprint
// larger than any L1D (at most 256 KB) and well inside every L2 (at least
// 2 MB), so after the copy engine has placed it in the L2 the loads are L2
// hits and L1D misses. The buffer is 256 rows of 4 KB (one row = one block's
// 256 float4); block b reads row (b + j) mod 256 in iteration j:
//   float4 acc = 0;
//   for (int j = 0; j < iters; ++j) acc += buf[((blockIdx.x + j) % 256) * 256 + threadIdx.x];
//   out[blockIdx.x * blockDim.x + threadIdx.x] = acc.x + acc.y + acc.z + acc.w;
// The blocks resident on one SM (b, b + #SMs, ...) read different rows at any
// moment, and a block comes back to a row only after 255 others, by when
// about 8 MB have passed through its SM: the L1D never keeps a row (the sm_70
// ISA offers no L1-bypassing load that the model tells apart from LDG, so
// the footprint does the bypassing). Each warp load is 512 contiguous bytes
// (4 full 128 B lines). 8 blocks of 256 threads per SM; large sizes relaunch.
#include <algorithm>

#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kWarps = kThreads / 32;
constexpr uint32_t kBlocksPerSm = 8;
constexpr uint32_t kElementBytes = 16;                      // float4
constexpr uint32_t kRowBytes = kThreads * kElementBytes;    // 4 KB
constexpr uint32_t kRows = 256;                             // 1 MB
constexpr uint64_t kMaxIters = 4096;                        // iterations per launch

struct L2ReadProgram {
  Program p;
  uint32_t loop, ld, back, st, exit;

  explicit L2ReadProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);                          // R1 = c[0x0][0x28] (stack)
    p.op("S2R", {0}, {});                    // R0 = SR_CTAID.X
    p.op("S2R", {3}, {});                    // R3 = SR_TID.X
    p.mov_param(8);                          // R8:R9 = buf
    p.mov_param(9);
    if (isa.ampere()) p.op("ULDC.64", {}, {});
    p.op("IMAD.SHL.U32", {6}, {3}, 4);       // tid * 16: byte offset in the row
    p.op("CS2R", {12}, {});                  // acc = 0
    p.op("CS2R", {14}, {});
    p.mov_imm(7, 0);                         // j = 0
    loop = p.here();
    p.op("IADD3", {5}, {0, 7, RZ});          // ctaid + j
    p.op("LOP3.LUT", {5}, {5, RZ}, kRows - 1);  // row = (ctaid + j) % 256
    p.op("LEA", {5}, {5, 6}, 12);            // row * 4096 + tid * 16
    p.op("IADD3", {4}, {8, 5, RZ});          // &buf[...]
    p.op("IADD3.X", {5}, {9, RZ, RZ});
    ld = p.ld(isa.ldg(kElementBytes), 16, 4, kElementBytes);  // R16..R19
    p.op("IADD3", {7}, {7, RZ, RZ}, 1);      // ++j
    p.op("ISETP.GE.AND", {}, {7});           // P0 = j >= iters
    p.op("FADD", {12}, {12, 16});            // acc += R16..R19
    p.op("FADD", {13}, {13, 17});
    p.op("FADD", {14}, {14, 18});
    p.op("FADD", {15}, {15, 19});
    back = p.bra(loop);                      // @!P0 BRA loop
    p.op("FADD", {12}, {12, 13});
    p.op("FADD", {14}, {14, 15});
    p.op("FADD", {12}, {12, 14});
    p.op("S2R", {2}, {});                    // ntid
    p.op("IMAD", {0}, {0, 2, 3});            // ctaid * ntid + tid
    p.mov_param(10);                         // R10 = 4
    p.op("IMAD.WIDE", {2}, {0, 10});         // &out[...]
    st = p.st(isa.stg(4), 2, 12, 4);
    exit = p.exit();
    p.finalize();
  }
  uint64_t per_warp(uint64_t iters) const { return loop + iters * (back - loop + 1) + (exit - back); }
};

struct Buffers {
  uint64_t buf, out;
};

void emit_warp(const L2ReadProgram& r, WarpWriter& w, const Buffers& b, uint32_t block, uint32_t warp,
               uint64_t iters) {
  w.run(0, r.loop, kFullMask);
  for (uint64_t j = 0; j < iters; ++j) {
    w.run(r.loop, r.ld, kFullMask);
    const uint64_t row = (block + j) % kRows;
    w.mem_lin(r.ld, kFullMask, b.buf + row * kRowBytes + warp * 32 * kElementBytes, kElementBytes);
    w.run(r.ld + 1, r.back, kFullMask);
    w.op(r.back, j + 1 < iters ? kFullMask : 0);
  }
  w.run(r.back + 1, r.st, kFullMask);
  w.mem_lin(r.st, kFullMask, b.out + 4 * (uint64_t(block) * kThreads + warp * 32), 4);
  w.op(r.exit, kFullMask);
}

}  // namespace

void generate_l2_read(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const L2ReadProgram r(o.arch);

  // Small sizes: one pass over as many blocks as the size buys; larger: the
  // full grid, and more iterations.
  const uint64_t max_grid = uint64_t(o.sms) * kBlocksPerSm;
  const LoopGrid shape = size_loop_grid(o.size, max_grid, kWarps, r.per_warp(0), r.per_warp(1));
  const uint64_t grid = shape.grid;
  uint64_t iters = shape.iters;
  const uint64_t launches = split_into_launches(iters, kMaxIters);

  Buffers b{};
  b.buf = trace.alloc(uint64_t(kRows) * kRowBytes);
  b.out = trace.alloc(4 * grid * kThreads);
  trace.memcpy_htod(b.buf, uint64_t(kRows) * kRowBytes);

  const LaunchSpec spec{"_Z6l2ReadPK6float4Pfi", Dim3{uint32_t(grid), 1, 1}, Dim3{kThreads, 1, 1}, 0};
  for (uint64_t k = 0; k < launches; ++k) {
    KernelWriter kw(trace, spec, r.p);
    for (uint32_t blk = 0; blk < grid; ++blk) {
      kw.begin_block(Dim3{blk, 0, 0});
      for (uint32_t w = 0; w < kWarps; ++w) {
        WarpWriter ww = kw.warp(w);
        emit_warp(r, ww, b, blk, w, iters);
      }
      kw.end_block();
    }
    kw.close();
  }
}

}  // namespace lockstep::gen
