// stencil2d: Jacobi sweeps of a 5-point stencil over a W x H grid,
//   x = blockIdx.x * 32 + threadIdx.x; y = blockIdx.y * 8 + threadIdx.y;
//   if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)
//     out[y*w + x] = (in[i - w] + in[i - 1] + in[i] + in[i + 1] + in[i + w]) / d;
// with 32x8 blocks (one warp per row segment). Neighbouring warps load
// overlapping rows, the +-1 loads are misaligned by one word, the boundary
// rows and columns leave lanes idle, and the division brings MUFU.RCP and a
// never-taken FCHK slow path. Sweeps ping-pong between two buffers.
#include <algorithm>
#include <cmath>

#include "frontend/gen/rng.h"
#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kBlockX = 32;
constexpr uint32_t kBlockY = 8;
constexpr uint64_t kMaxCells = uint64_t(8192) * 8192;  // 256 MB per buffer

struct StencilProgram {
  Program p;
  uint32_t exit0, ld_w, ld_e, ld_c, ld_n, ld_s, slow, st, exit1;

  explicit StencilProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);
    p.op("S2R", {0}, {});             // ctaid.x
    p.op("S2R", {3}, {});             // tid.x
    p.op("S2R", {2}, {});             // ctaid.y
    p.op("S2R", {5}, {});             // tid.y
    p.op("IMAD", {0}, {0, 3});        // x
    p.op("IMAD", {2}, {2, 5});        // y
    p.op("IADD3", {4}, {0, RZ}, -1);  // x - 1
    p.op("IADD3", {6}, {2, RZ}, -1);  // y - 1
    p.op("ISETP.GE.U32.AND", {}, {4});
    p.op("ISETP.GE.U32.OR", {}, {6});
    exit0 = p.exit();
    if (isa.ampere()) {
      p.op("HFMA2.MMA", {7}, {RZ, RZ});
      p.op("ULDC.64", {}, {});
    } else {
      p.mov_imm(7, 4);
    }
    p.op("IMAD", {2}, {2, 0});         // i = y * w + x
    p.op("IMAD.WIDE", {4}, {2, 7});    // &in[i]
    p.mov_param(9);                    // w
    p.op("IADD3", {8}, {RZ, 9, RZ});   // -w
    p.op("IMAD.WIDE", {10}, {9, 4}, 4);  // &in[i + w]
    p.op("IMAD.WIDE", {14}, {8, 4}, 4);  // &in[i - w]
    ld_w = p.ld(isa.ldg(4), 12, 4, 4, -4);
    ld_e = p.ld(isa.ldg(4), 13, 4, 4, 4);
    ld_c = p.ld(isa.ldg(4), 16, 4, 4);
    ld_n = p.ld(isa.ldg(4), 14, 14, 4);
    ld_s = p.ld(isa.ldg(4), 10, 10, 4);
    p.mov_param(17);                   // d
    p.op("FADD", {12}, {12, 13});
    p.op("MUFU.RCP", {18}, {17});
    p.op("FADD", {12}, {12, 16});
    p.op("FADD", {12}, {12, 14});
    p.op("FFMA", {19}, {17, 18}, 0x3f800000);  // -d * r + 1
    p.op("FADD", {12}, {12, 10});
    p.op("FFMA", {19}, {18, 19, 18});
    p.op("FFMA", {20}, {12, 19, RZ});
    p.op("FFMA", {21}, {17, 20, 12});
    p.op("FFMA", {20}, {19, 21, 20});
    p.op("FCHK", {}, {12, 17});
    p.op("IMAD.WIDE", {2}, {2, 7});    // &out[i]
    slow = p.bra_forward();            // @P0 BRA: the division's slow path
    const uint32_t resume = p.here();
    st = p.st(isa.stg(4), 2, 20, 4);
    exit1 = p.exit();
    // Out-of-line slow path and the division subroutine: present in the
    // program, never reached by these inputs.
    p.land(slow);
    const auto mov = [&](Reg d, Reg s) {
      return isa.ampere() ? p.op("IMAD.MOV.U32", {d}, {RZ, RZ, s}) : p.op("MOV", {d}, {s});
    };
    mov(4, 12);
    mov(5, 17);
    const uint32_t call = p.call_forward();
    mov(20, 4);
    p.bra(resume);
    p.land(call);
    p.op("SHF.R.U32.HI", {6}, {RZ, 5}, 23);
    p.op("SHF.R.U32.HI", {7}, {RZ, 4}, 23);
    p.op("IADD3", {6}, {6, RZ}, -1);
    p.op("IADD3", {7}, {7, RZ}, -1);
    p.op("RET.REL.NODEC", {}, {RZ});
    p.finalize();
  }
  uint64_t interior_warp() const { return exit1 + 1; }
};

struct Grid {
  uint32_t w, h;   // cells
  uint32_t bx, by; // blocks
};

void emit_warp(const StencilProgram& s, WarpWriter& w, const Grid& g, uint64_t in, uint64_t out, uint32_t bx,
               uint32_t y) {
  w.run(0, s.exit0, kFullMask);
  // Interior lanes: 1 <= x <= w - 2 and 1 <= y <= h - 2.
  uint32_t act = 0;
  if (y >= 1 && y + 1 < g.h) {
    const int64_t x0 = int64_t(bx) * kBlockX;
    const int64_t lo = std::max<int64_t>(1 - x0, 0), hi = std::min<int64_t>(int64_t(g.w) - 2 - x0, 31);
    if (lo <= hi) act = lanes_below(uint32_t(hi + 1)) & ~lanes_below(uint32_t(lo));
  }
  w.op(s.exit0, ~act);
  if (!act) return;
  const uint64_t i0 = uint64_t(y) * g.w + uint64_t(bx) * kBlockX;  // cell of lane 0
  w.run(s.exit0 + 1, s.ld_w, act);
  w.mem_lin(s.ld_w, act, in + 4 * (i0 - 1), 4);
  w.mem_lin(s.ld_e, act, in + 4 * (i0 + 1), 4);
  w.mem_lin(s.ld_c, act, in + 4 * i0, 4);
  w.mem_lin(s.ld_n, act, in + 4 * (i0 - g.w), 4);
  w.mem_lin(s.ld_s, act, in + 4 * (i0 + g.w), 4);
  w.run(s.ld_s + 1, s.slow, act);
  w.op(s.slow, 0);
  w.mem_lin(s.st, act, out + 4 * i0, 4);
  w.op(s.exit1, act);
}

}  // namespace

void generate_stencil2d(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const StencilProgram s(o.arch);
  Rng rng(o.seed, 2);
  const uint64_t per_warp = s.interior_warp();
  const uint64_t warps_per_block = kBlockX * kBlockY / 32;

  // Up to 8 sweeps while each still fills the GPU about three times over,
  // more (over the largest grid) when the size asks for it.
  const uint64_t fill = uint64_t(o.sms) * 24 * warps_per_block * per_warp;
  uint64_t sweeps = std::clamp<uint64_t>(o.size / fill, 1, 8);
  const uint64_t max_per_sweep = kMaxCells / 32 * per_warp;
  if (o.size / sweeps > max_per_sweep) sweeps = ceil_div(o.size, max_per_sweep);
  const uint64_t warps = std::max<uint64_t>(1, round_div(o.size / sweeps, per_warp));

  // A square-ish grid; the width is not a multiple of the block width, so the
  // last block column is ragged.
  Grid g{};
  const double side = std::sqrt(double(warps) * 32);
  g.bx = uint32_t(std::max<int64_t>(1, std::llround(side / kBlockX)));
  g.by = uint32_t(std::max<uint64_t>(1, round_div(warps, uint64_t(g.bx) * warps_per_block)));
  g.w = g.bx * kBlockX - 8 + uint32_t(rng.below(4)) * 2;
  g.h = g.by * kBlockY;
  const uint64_t bytes = uint64_t(g.w) * g.h * 4;

  const uint64_t buf[2] = {trace.alloc(bytes), trace.alloc(bytes)};
  trace.memcpy_htod(buf[0], bytes);
  trace.memcpy_htod(buf[1], bytes);  // the boundary cells of both buffers

  const LaunchSpec spec{"_Z9stencil2dPKfPfiif", Dim3{g.bx, g.by, 1}, Dim3{kBlockX, kBlockY, 1}, 0};
  for (uint64_t k = 0; k < sweeps; ++k) {
    const uint64_t in = buf[k % 2], out = buf[(k + 1) % 2];
    KernelWriter kw(trace, spec, s.p);
    for (uint32_t by = 0; by < g.by; ++by) {
      for (uint32_t bx = 0; bx < g.bx; ++bx) {
        kw.begin_block(Dim3{bx, by, 0});
        for (uint32_t w = 0; w < warps_per_block; ++w) {
          WarpWriter ww = kw.warp(w);
          emit_warp(s, ww, g, in, out, bx, by * kBlockY + w);
        }
        kw.end_block();
      }
    }
    kw.close();
  }
}

}  // namespace lockstep::gen
