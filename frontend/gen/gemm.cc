// gemm: C = A * B (row-major floats) with 64x64 block tiles, a 16-deep K
// slice per step and 4x4 outputs per thread (256 threads, tx = tid & 15,
// ty = tid >> 4):
//   for (kt = 0; kt < K; kt += 16) {
//     float4 a = A[by*64 + tid/4][kt + (tid%4)*4], b = B[kt + tid/16][bx*64 + (tid%16)*4];
//     As[(tid%4)*4 + 0..3][tid/4] = a;   // transposed
//     Bs[tid/16][(tid%16)*4..] = b;
//     __syncthreads();
//     for (k = 0; k < 16; k += 4)         // unrolled by 4
//       acc[i][j] += As[k][ty*4 + i] * Bs[k][tx*4 + j];   // LDS.128 x2 + 16 FFMA per k
//     __syncthreads();
//   }
//   C[by*64 + ty*4 + i][bx*64 + tx*4 ..] = acc[i];   // STG.128 x4
// Shared addresses are offsets in the block's 8 KB window (As at 0, Bs at 4096).
#include <algorithm>
#include <cmath>

#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kWarps = kThreads / 32;
constexpr uint32_t kTile = 64;
constexpr uint32_t kDepth = 16;
constexpr uint32_t kBsOffset = 4096;
constexpr uint64_t kMaxTiles = 256;  // 16384 x 16384 matrices

struct GemmProgram {
  Program p;
  uint32_t tile, ld_a, ld_b, sts_a, sts_b, inner, lds[8], inner_bra, tile_bra, stg[4], exit;

  void ffma16(Reg a, Reg b) {
    for (Reg i = 0; i < 4; ++i)
      for (Reg j = 0; j < 4; ++j) {
        const Reg acc = Reg(16 + i * 4 + j);
        p.op("FFMA", {acc}, {Reg(a + i), Reg(b + j), acc});
      }
  }

  explicit GemmProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    const auto mov = [&](Reg d, Reg s) {
      return isa.ampere() ? p.op("IMAD.MOV.U32", {d}, {RZ, RZ, s}) : p.op("MOV", {d}, {s});
    };
    p.mov_param(1);
    p.op("S2R", {0}, {});                    // tid
    p.op("S2R", {15}, {});                   // ctaid.y
    p.op("S2R", {14}, {});                   // ctaid.x
    p.op("SHF.R.U32.HI", {5}, {RZ, 0}, 2);   // tid / 4: A row in tile
    p.op("LOP3.LUT", {4}, {0, RZ}, 3);       // tid % 4
    p.op("SHF.R.U32.HI", {6}, {RZ, 0}, 4);   // ty: B row in tile
    p.op("LOP3.LUT", {7}, {0, RZ}, 15);      // tx
    p.op("LEA", {51}, {4, 5}, 8);            // As store slot
    p.op("SHF.L.U32", {51}, {51, RZ}, 2);
    p.op("LEA", {5}, {15, 5}, 6);            // A row
    p.op("IMAD.SHL.U32", {57}, {6}, 4);
    p.op("LEA", {57}, {15, 57}, 6);          // C row: by*64 + ty*4
    p.op("IMAD.SHL.U32", {58}, {7}, 4);
    p.op("LEA", {58}, {14, 58}, 6);          // C / B column: bx*64 + tx*4
    p.op("IMAD", {5}, {5, RZ});              // * K
    p.op("LEA", {5}, {4, 5}, 2);             // + (tid % 4) * 4
    p.op("IMAD", {9}, {6, 58});              // B: row * N + column
    if (isa.ampere()) {
      p.op("HFMA2.MMA", {10}, {RZ, RZ});
      p.op("ULDC.64", {}, {});
    } else {
      p.mov_imm(10, 4);
    }
    p.op("IMAD.WIDE", {2}, {5, 10});         // A pointer
    p.op("IMAD.WIDE", {12}, {9, 10});        // B pointer
    p.op("IMAD.SHL.U32", {48}, {6}, 16);     // As read offset
    p.op("IMAD.SHL.U32", {49}, {7}, 16);     // Bs read offset
    p.op("IMAD.SHL.U32", {53}, {0}, 16);     // Bs store slot
    p.mov_param(52);                         // 16 * N
    for (Reg r = 16; r < 32; r += 2) p.op("CS2R", {r}, {});
    p.mov_imm(14, 0);                        // kt

    tile = p.here();
    ld_a = p.ld(isa.ldg(16), 4, 2, 16);
    ld_b = p.ld(isa.ldg(16), 8, 12, 16);
    p.op("IADD3", {2}, {2, RZ}, 64);
    p.op("IADD3.X", {3}, {RZ, 3});
    p.op("IMAD.WIDE", {12}, {52, 12}, 4);
    sts_a = p.st(isa.sts(4), 51, 4, 4, 0);
    p.st(isa.sts(4), 51, 5, 4, 256);
    p.st(isa.sts(4), 51, 6, 4, 512);
    p.st(isa.sts(4), 51, 7, 4, 768);
    sts_b = p.st(isa.sts(16), 53, 8, 16, kBsOffset);
    p.op("BAR.SYNC", {}, {});
    mov(54, 48);
    mov(55, 49);
    p.mov_imm(50, 0);

    inner = p.here();
    lds[0] = p.ld(isa.lds(16), 32, 54, 16, 0);
    lds[1] = p.ld(isa.lds(16), 36, 55, 16, kBsOffset);
    lds[2] = p.ld(isa.lds(16), 40, 54, 16, 256);
    lds[3] = p.ld(isa.lds(16), 44, 55, 16, kBsOffset + 256);
    ffma16(32, 36);
    lds[4] = p.ld(isa.lds(16), 32, 54, 16, 512);
    lds[5] = p.ld(isa.lds(16), 36, 55, 16, kBsOffset + 512);
    ffma16(40, 44);
    lds[6] = p.ld(isa.lds(16), 40, 54, 16, 768);
    lds[7] = p.ld(isa.lds(16), 44, 55, 16, kBsOffset + 768);
    ffma16(32, 36);
    p.op("IADD3", {50}, {50, RZ}, 4);
    p.op("IADD3", {54}, {54, RZ}, 1024);
    p.op("IADD3", {55}, {55, RZ}, 1024);
    p.op("ISETP.NE.AND", {}, {50});
    ffma16(40, 44);
    inner_bra = p.bra(inner);
    p.op("BAR.SYNC", {}, {});
    p.op("IADD3", {14}, {14, RZ}, kDepth);
    p.op("ISETP.GE.AND", {}, {14});
    tile_bra = p.bra(tile);

    if (isa.ampere())
      p.op("HFMA2.MMA", {59}, {RZ, RZ});
    else
      p.mov_imm(59, 4);
    p.op("IMAD", {56}, {57, 58});            // C row * N + column
    p.mov_param(61);                         // N * 4
    p.op("IMAD.WIDE", {62}, {56, 59});
    stg[0] = p.st(isa.stg(16), 62, 16, 16);
    p.op("IMAD.WIDE", {60}, {61, 62}, 1);
    stg[1] = p.st(isa.stg(16), 60, 20, 16);
    p.op("IMAD.WIDE", {62}, {61, 60}, 1);
    stg[2] = p.st(isa.stg(16), 62, 24, 16);
    p.op("IMAD.WIDE", {60}, {61, 62}, 1);
    stg[3] = p.st(isa.stg(16), 60, 28, 16);
    exit = p.exit();
    p.finalize();
  }

  uint64_t per_warp(uint64_t k_tiles) const {
    const uint64_t per_tile = (inner - tile) + (kDepth / 4) * (inner_bra - inner + 1) + (tile_bra - inner_bra);
    return tile + k_tiles * per_tile + (exit - tile_bra);
  }
};

struct Shape {
  uint64_t m, n, k;      // elements
  uint64_t a, b, c;      // buffers
};

void emit_warp(const GemmProgram& g, WarpWriter& w, const Shape& s, uint32_t bx, uint32_t by, uint32_t warp) {
  const uint32_t full = kFullMask;
  const uint32_t t0 = warp * 32;  // tid of lane 0
  w.run(0, g.tile, full);
  for (uint64_t kt = 0; kt < s.k; kt += kDepth) {
    w.mem(g.ld_a, full, [&](uint32_t l) {
      const uint32_t tid = t0 + l;
      return s.a + ((uint64_t(by) * kTile + tid / 4) * s.k + kt + (tid % 4) * 4) * 4;
    });
    w.mem(g.ld_b, full, [&](uint32_t l) {
      const uint32_t tid = t0 + l;
      return s.b + ((kt + tid / 16) * s.n + uint64_t(bx) * kTile + (tid % 16) * 4) * 4;
    });
    w.run(g.ld_b + 1, g.sts_a, full);
    for (uint32_t i = 0; i < 4; ++i)
      w.mem(g.sts_a + i, full, [&](uint32_t l) {
        const uint32_t tid = t0 + l;
        return uint64_t((tid % 4) * 1024 + i * 256 + (tid / 4) * 4);
      });
    w.mem_lin(g.sts_b, full, kBsOffset + uint64_t(t0) * 16, 16);
    w.run(g.sts_b + 1, g.inner, full);
    for (uint32_t k = 0; k < kDepth; k += 4) {
      uint32_t next = g.inner;
      for (uint32_t j = 0; j < 8; ++j) {
        w.run(next, g.lds[j], full);
        const uint32_t krow = k + j / 2;  // lds 0,1 read row k; 2,3 row k+1; 4,5 row k+2; 6,7 row k+3
        if (j % 2 == 0)
          w.mem(g.lds[j], full, [&](uint32_t l) { return uint64_t(krow * 256 + ((t0 + l) / 16) * 16); });
        else
          w.mem(g.lds[j], full,
                [&](uint32_t l) { return uint64_t(kBsOffset + krow * 256 + ((t0 + l) % 16) * 16); });
        next = g.lds[j] + 1;
      }
      w.run(next, g.inner_bra, full);
      w.op(g.inner_bra, k + 4 < kDepth ? full : 0);
    }
    w.run(g.inner_bra + 1, g.tile_bra, full);
    w.op(g.tile_bra, kt + kDepth < s.k ? full : 0);
  }
  uint32_t next = g.tile_bra + 1;
  for (uint32_t i = 0; i < 4; ++i) {
    w.run(next, g.stg[i], full);
    w.mem(g.stg[i], full, [&](uint32_t l) {
      const uint32_t tid = t0 + l;
      return s.c + ((uint64_t(by) * kTile + (tid / 16) * 4 + i) * s.n + uint64_t(bx) * kTile + (tid % 16) * 4) * 4;
    });
    next = g.stg[i] + 1;
  }
  w.op(g.exit, full);
}

}  // namespace

void generate_gemm(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const GemmProgram g(o.arch);

  // Square problems when the size buys at least ~8 blocks per SM; below that
  // keep the grid wide and the K depth short.
  const uint64_t target_blocks = uint64_t(o.sms) * 8;
  const auto square_total = [&](uint64_t tiles) { return tiles * tiles * kWarps * g.per_warp(tiles * kTile / kDepth); };
  uint64_t gx, gy, k_tiles, launches = 1;
  uint64_t side = std::max<uint64_t>(1, uint64_t(std::ceil(std::sqrt(double(target_blocks)))));
  if (square_total(side) <= o.size) {
    while (side < kMaxTiles && square_total(side + 1) <= o.size) ++side;
    if (side < kMaxTiles && o.size - square_total(side) > square_total(side + 1) - o.size) ++side;
    gx = gy = side;
    k_tiles = side * kTile / kDepth;
    if (side == kMaxTiles) launches = std::max<uint64_t>(1, round_div(o.size, square_total(side)));
  } else {
    const uint64_t per_warp = o.size / (target_blocks * kWarps);
    const uint64_t per_tile = g.per_warp(1) - g.per_warp(0);
    k_tiles = std::max<uint64_t>(1, round_div(per_warp - std::min(per_warp, g.per_warp(0)), per_tile));
    const uint64_t blocks = std::max<uint64_t>(1, round_div(o.size, kWarps * g.per_warp(k_tiles)));
    gx = uint64_t(std::ceil(std::sqrt(double(blocks))));
    gy = std::max<uint64_t>(1, round_div(blocks, gx));
  }

  Shape s{};
  s.m = gy * kTile;
  s.n = gx * kTile;
  s.k = k_tiles * kDepth;
  s.a = trace.alloc(s.m * s.k * 4);
  s.b = trace.alloc(s.k * s.n * 4);
  s.c = trace.alloc(s.m * s.n * 4);
  trace.memcpy_htod(s.a, s.m * s.k * 4);
  trace.memcpy_htod(s.b, s.k * s.n * 4);

  const LaunchSpec spec{"_Z10sgemm_tileILi64ELi64ELi16EEvPKfS1_Pfiii", Dim3{uint32_t(gx), uint32_t(gy), 1},
                        Dim3{kThreads, 1, 1}, 2 * kTile * kDepth * 4};
  for (uint64_t l = 0; l < launches; ++l) {
    KernelWriter kw(trace, spec, g.p);
    for (uint32_t by = 0; by < gy; ++by)
      for (uint32_t bx = 0; bx < gx; ++bx) {
        kw.begin_block(Dim3{bx, by, 0});
        for (uint32_t w = 0; w < kWarps; ++w) {
          WarpWriter ww = kw.warp(w);
          emit_warp(g, ww, s, bx, by, w);
        }
        kw.end_block();
      }
    kw.close();
  }
}

}  // namespace lockstep::gen
