// reduce: a sum over n floats, in the style of the CUDA samples' reduction
// and threadFenceReduction (256 threads, each block reads 2 * 256 elements
// per grid-stride step):
//   float s = 0;
//   for (i = blockIdx.x * 512 + tid; i < n; i += gridDim.x * 512) s += in[i] + in[i + 256];
//   sdata[tid] = s; __syncthreads();
//   for (k = 128; k > 0; k >>= 1) { if (tid < k) sdata[tid] += sdata[tid + k]; __syncthreads(); }
//   if (tid == 0) {
//     atomicAdd(&out[0], sdata[0]);                          // RED
//     if (atomicAdd(&done, 1) == gridDim.x - 1)             // ATOMG, result used
//       out[1] = out[0] * (1.0f / n);                       // last block: MUFU.RCP
//   }
// The tree's active masks shrink level by level (whole warps drop out, then
// lanes of warp 0). Large sizes relaunch over the same input.
#include <algorithm>

#include "frontend/gen/rng.h"
#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kWarps = kThreads / 32;
constexpr uint32_t kPerStep = 2 * kThreads;
constexpr uint64_t kMaxElements = uint64_t(1) << 30;

struct ReduceProgram {
  Program p;
  uint32_t skip_loop, loop, ld0, ld1, back, sts, level, skip, lds0, lds1, sts2, next, level_back, exit0,
      lds_total, red, atom, exit1, ld_out, st_mean, exit2;

  explicit ReduceProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);
    p.op("S2R", {0}, {});                      // tid
    p.op("S2R", {3}, {});                      // ctaid
    p.op("CS2R", {10}, {});                    // s = 0
    p.op("IMAD", {2}, {3, 0}, kPerStep);       // i
    p.op("ISETP.GE.U32.AND", {}, {2});
    p.op("IMAD.SHL.U32", {11}, {0}, 4);        // &sdata[tid]
    skip_loop = p.bra_forward();               // @P0 BRA: no element for this thread
    p.mov_param(9);                            // gridDim.x * 512
    if (isa.ampere())
      p.op("HFMA2.MMA", {7}, {RZ, RZ});
    else
      p.mov_imm(7, 4);
    loop = p.here();
    p.op("IMAD.WIDE.U32", {4}, {2, 7});
    ld0 = p.ld(isa.ldg(4), 5, 4, 4);
    ld1 = p.ld(isa.ldg(4), 8, 4, 4, kThreads * 4);
    p.op("IADD3", {2}, {9, 2, RZ});
    p.op("ISETP.GE.U32.AND", {}, {2});
    p.op("FADD", {10}, {10, 5});
    p.op("FADD", {10}, {10, 8});
    back = p.bra(loop);                        // @!P0 BRA
    p.land(skip_loop);
    sts = p.st(isa.sts(4), 11, 10, 4);
    p.op("BAR.SYNC", {}, {});
    p.mov_imm(12, kThreads / 2);               // k
    level = p.here();
    p.op("ISETP.GE.U32.AND", {}, {0, 12});
    skip = p.bra_forward();                    // @P0 BRA: tid >= k
    p.op("LEA", {13}, {12, 11}, 2);            // &sdata[tid + k]
    lds0 = p.ld(isa.lds(4), 14, 13, 4);
    lds1 = p.ld(isa.lds(4), 15, 11, 4);
    p.op("FADD", {15}, {14, 15});
    sts2 = p.st(isa.sts(4), 11, 15, 4);
    p.land(skip);
    next = p.here();
    p.op("BAR.SYNC", {}, {});
    p.op("SHF.R.U32.HI", {12}, {RZ, 12}, 1);
    p.op("ISETP.NE.AND", {}, {12, RZ});
    level_back = p.bra(level);                 // @P0 BRA
    p.op("ISETP.NE.AND", {}, {0, RZ});
    exit0 = p.exit();                          // @P0 EXIT: tid != 0
    lds_total = p.ld(isa.lds(4), 5, RZ, 4);
    if (isa.ampere()) p.op("ULDC.64", {}, {});
    p.mov_param(2);
    p.mov_param(3);
    red = p.mem(isa.red_add_f32(), {}, {2, 5}, 4);
    p.mov_param(6);
    p.mov_param(7);
    p.mov_imm(9, 1);
    atom = p.mem(isa.atomg_add_u32(), {8}, {6, 9}, 4);
    p.mov_param(10);                           // gridDim.x - 1
    p.op("ISETP.NE.AND", {}, {8, 10});
    exit1 = p.exit();                          // @P0 EXIT: not the last block
    ld_out = p.ld(isa.ldg(4), 5, 2, 4);
    p.op("I2F.U32", {11}, {});                 // (float)n
    p.op("MUFU.RCP", {12}, {11});
    p.op("FMUL", {5}, {5, 12});
    st_mean = p.st(isa.stg(4), 2, 5, 4, 4);
    exit2 = p.exit();
    p.finalize();
  }
};

struct Data {
  uint64_t in, out, done, n, grid;
};

void emit_warp(const ReduceProgram& r, WarpWriter& w, const Data& d, uint32_t block, uint32_t warp) {
  const uint32_t full = kFullMask;
  const uint64_t step = d.grid * kPerStep;
  w.run(0, r.skip_loop, full);
  // Lanes with an element: i = block * 512 + tid < n (n is a multiple of 512,
  // so a block's threads all have one or none).
  const uint64_t first = uint64_t(block) * kPerStep + warp * 32;
  uint32_t act = first < d.n ? full : 0;
  w.op(r.skip_loop, ~act);
  if (act) {
    w.run(r.skip_loop + 1, r.loop, act);
    for (uint64_t i = first;; i += step) {
      w.run(r.loop, r.ld0, act);
      w.mem_lin(r.ld0, act, d.in + 4 * i, 4);
      w.mem_lin(r.ld1, act, d.in + 4 * (i + kThreads), 4);
      w.run(r.ld1 + 1, r.back, act);
      const bool more = i + step < d.n;
      w.op(r.back, more ? act : 0);
      if (!more) break;
    }
  }
  const uint64_t slot = uint64_t(warp) * 32 * 4;  // &sdata[tid] of lane 0
  w.mem_lin(r.sts, full, slot, 4);
  w.run(r.sts + 1, r.level, full);
  for (uint32_t k = kThreads / 2; k > 0; k >>= 1) {
    // Lanes with tid < k add sdata[tid + k] into sdata[tid].
    const uint32_t below = warp * 32 >= k ? 0 : lanes_below(k - warp * 32);
    w.run(r.level, r.skip, full);
    w.op(r.skip, full & ~below);
    if (below) {
      w.run(r.skip + 1, r.lds0, below);
      w.mem_lin(r.lds0, below, slot + 4 * k, 4);
      w.mem_lin(r.lds1, below, slot, 4);
      w.run(r.lds1 + 1, r.sts2, below);
      w.mem_lin(r.sts2, below, slot, 4);
    }
    w.run(r.next, r.level_back, full);
    w.op(r.level_back, k > 1 ? full : 0);
  }
  w.run(r.level_back + 1, r.exit0, full);
  const uint32_t lane0 = warp == 0 ? 1u : 0u;
  w.op(r.exit0, full & ~lane0);
  if (!lane0) return;
  w.mem_lin(r.lds_total, lane0, 0, 0);
  w.run(r.lds_total + 1, r.red, lane0);
  w.mem_lin(r.red, lane0, d.out, 0);
  w.run(r.red + 1, r.atom, lane0);
  w.mem_lin(r.atom, lane0, d.done, 0);
  w.run(r.atom + 1, r.exit1, lane0);
  // The last block to take a ticket finishes; in this trace that is the last block.
  const bool last = block + 1 == d.grid;
  w.op(r.exit1, last ? 0 : lane0);
  if (!last) return;
  w.mem_lin(r.ld_out, lane0, d.out, 0);
  w.run(r.ld_out + 1, r.st_mean, lane0);
  w.mem_lin(r.st_mean, lane0, d.out + 4, 0);
  w.op(r.exit2, lane0);
}

}  // namespace

void generate_reduce(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const ReduceProgram r(o.arch);
  Rng rng(o.seed, 5);

  // Instructions per warp for `iters` grid-stride steps, from the emitter itself.
  const auto per_warp = [&](uint64_t iters) {
    Data d{0, 0, 0, iters * kPerStep, 1};
    WarpWriter counter(r.p, nullptr);
    emit_warp(r, counter, d, 0, 1);
    return counter.count();
  };
  const uint64_t max_grid = uint64_t(o.sms) * 32;
  uint64_t grid, iters;
  if (o.size <= max_grid * kWarps * per_warp(1)) {
    grid = std::max<uint64_t>(1, round_div(o.size, kWarps * per_warp(1)));
    iters = 1;
  } else {
    grid = max_grid;
    const uint64_t budget = o.size / (grid * kWarps);
    const uint64_t base = per_warp(1), step = per_warp(2) - per_warp(1);
    iters = 1 + (budget > base ? round_div(budget - base, step) : 0);
  }
  uint64_t launches = 1;
  const uint64_t max_iters = std::max<uint64_t>(1, kMaxElements / (grid * kPerStep));
  if (iters > max_iters) {
    launches = ceil_div(iters, max_iters);
    iters = std::max<uint64_t>(1, round_div(iters, launches));
  }
  // n is a multiple of 512 but not of the grid's step: the last pass is partial.
  const uint64_t short_blocks = iters > 1 ? rng.below(grid / 2 + 1) : 0;
  Data d{};
  d.grid = grid;
  d.n = (grid * iters - short_blocks) * kPerStep;
  d.in = trace.alloc(4 * d.n);
  d.out = trace.alloc(8);
  d.done = trace.alloc(4);
  trace.memcpy_htod(d.in, 4 * d.n);

  const LaunchSpec spec{"_Z10reduce_sumPKfPfPjj", Dim3{uint32_t(grid), 1, 1}, Dim3{kThreads, 1, 1},
                        kThreads * 4};
  for (uint64_t l = 0; l < launches; ++l) {
    trace.memcpy_htod(d.out, 8);   // zero the result
    trace.memcpy_htod(d.done, 4);  // and the ticket counter
    KernelWriter kw(trace, spec, r.p);
    for (uint32_t b = 0; b < grid; ++b) {
      kw.begin_block(Dim3{b, 0, 0});
      for (uint32_t w = 0; w < kWarps; ++w) {
        WarpWriter ww = kw.warp(w);
        emit_warp(r, ww, d, b, w);
      }
      kw.end_block();
    }
    kw.close();
  }
}

}  // namespace lockstep::gen
