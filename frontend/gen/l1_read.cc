// l1_read: each block re-reads its own 16 KB with float4 loads, so after the
// first pass every load hits in the L1D:
//   float4 acc = 0;
//   const float4* p = buf + blockIdx.x * 4 * 256 + threadIdx.x;
//   for (int j = 0; j < iters; ++j)  // unrolled: four independent loads in flight per warp
//     acc += p[0] + p[256] + p[512] + p[768];
//   out[blockIdx.x * blockDim.x + threadIdx.x] = acc.x + acc.y + acc.z + acc.w;
// The buffer is 4 rows of 4 KB (one row = one block's 256 float4) per block.
// 4 blocks of 256 threads per SM keep 64 KB per SM resident: half of Volta's
// smallest-carve-out L1D (128 KB), a quarter of Ampere's or Hopper's. Each
// warp load is 512 contiguous bytes (4 full 128 B lines). Large sizes relaunch.
#include <algorithm>

#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kWarps = kThreads / 32;
constexpr uint32_t kBlocksPerSm = 4;
constexpr uint32_t kElementBytes = 16;                      // float4
constexpr uint32_t kRowBytes = kThreads * kElementBytes;    // 4 KB
constexpr uint32_t kRowsPerBlock = 4;                       // 16 KB per block
constexpr uint64_t kMaxIters = 4096;                        // iterations per launch

struct L1ReadProgram {
  Program p;
  uint32_t loop, ld, back, st, exit;  // ld: the first of the loop's kRowsPerBlock loads

  explicit L1ReadProgram(uint32_t sm) : p(sm) {
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
    p.op("LEA", {5}, {0, 6}, 14);            // ctaid * 16384 + tid * 16
    p.op("IADD3", {4}, {8, 5, RZ});          // p = &buf[...]
    p.op("IADD3.X", {5}, {9, RZ, RZ});
    loop = p.here();
    ld = p.ld(isa.ldg(kElementBytes), 16, 4, kElementBytes);  // R16..R19 = p[0]
    for (uint16_t r = 1; r < kRowsPerBlock; ++r) p.ld(isa.ldg(kElementBytes), uint16_t(16 + 4 * r), 4, kElementBytes);
    p.op("IADD3", {7}, {7, RZ, RZ}, 1);      // ++j
    p.op("ISETP.GE.AND", {}, {7});           // P0 = j >= iters
    for (uint16_t r = 0; r < kRowsPerBlock; ++r)
      for (uint16_t c = 0; c < 4; ++c) p.op("FADD", {uint16_t(12 + c)}, {uint16_t(12 + c), uint16_t(16 + 4 * r + c)});
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

void emit_warp(const L1ReadProgram& r, WarpWriter& w, const Buffers& b, uint32_t block, uint32_t warp,
               uint64_t iters) {
  w.run(0, r.loop, kFullMask);
  for (uint64_t j = 0; j < iters; ++j) {
    w.run(r.loop, r.ld, kFullMask);
    for (uint32_t row = 0; row < kRowsPerBlock; ++row)
      w.mem_lin(r.ld + row, kFullMask,
                b.buf + (uint64_t(block) * kRowsPerBlock + row) * kRowBytes + warp * 32 * kElementBytes, kElementBytes);
    w.run(r.ld + kRowsPerBlock, r.back, kFullMask);
    w.op(r.back, j + 1 < iters ? kFullMask : 0);
  }
  w.run(r.back + 1, r.st, kFullMask);
  w.mem_lin(r.st, kFullMask, b.out + 4 * (uint64_t(block) * kThreads + warp * 32), 4);
  w.op(r.exit, kFullMask);
}

}  // namespace

void generate_l1_read(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const L1ReadProgram r(o.arch);

  // Small sizes: one pass over as many blocks as the size buys; larger: the
  // full grid, and more iterations.
  const uint64_t max_grid = uint64_t(o.sms) * kBlocksPerSm;
  const LoopGrid shape = size_loop_grid(o.size, max_grid, kWarps, r.per_warp(0), r.per_warp(1));
  const uint64_t grid = shape.grid;
  uint64_t iters = shape.iters;
  const uint64_t launches = split_into_launches(iters, kMaxIters);

  Buffers b{};
  const uint64_t bytes = grid * kRowsPerBlock * kRowBytes;
  b.buf = trace.alloc(bytes);
  b.out = trace.alloc(4 * grid * kThreads);
  trace.memcpy_htod(b.buf, bytes);

  const LaunchSpec spec{"_Z6l1ReadPK6float4Pfi", Dim3{uint32_t(grid), 1, 1}, Dim3{kThreads, 1, 1}, 0};
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
