// graph: level-synchronous BFS in the style of Rodinia's bfs, over a random
// directed CSR graph drawn from the seed (degrees 1..11, about 1% hubs of up
// to 127 edges; 30% of edges stay within +-64 nodes, the rest are uniform).
// Each level launches two kernels after resetting the "over" flag:
//   bfs_expand: if (tid < n && mask[tid]) { mask[tid] = false;
//                 for (i = node[tid].start; i < node[tid].start + node[tid].deg; i++) {
//                   id = edges[i]; if (!visited[id]) { cost[id] = cost[tid] + 1; updating[id] = true; } } }
//   bfs_update: if (tid < n && updating[tid]) { mask[tid] = visited[tid] = *over = true; updating[tid] = false; }
// giving data-dependent gathers, frontier masks, per-lane loop trip counts
// and partially taken branches. The graph is never stored: edges are
// recomputed from a hash, only offsets and BFS levels live in memory. Sizes
// beyond the largest graph run further searches from other roots.
#include <algorithm>
#include <array>
#include <vector>

#include "frontend/gen/rng.h"
#include "frontend/gen/workloads.h"

namespace lockstep::gen {
namespace {

constexpr uint32_t kMaxThreads = 512;
constexpr uint64_t kMinNodes = 32;
constexpr uint64_t kMaxNodes = uint64_t(1) << 24;
constexpr uint8_t kUnvisited = 255;

class Graph {
 public:
  Graph(uint64_t seed, uint32_t n) : seed_(seed), n_(n), offset_(size_t(n) + 1) {
    uint64_t total = 0;
    for (uint32_t v = 0; v < n; ++v) {
      offset_[v] = uint32_t(total);
      total += draw_degree(v);
    }
    offset_[n] = uint32_t(total);
  }
  uint32_t nodes() const { return n_; }
  uint64_t edges() const { return offset_[n_]; }
  uint32_t start(uint32_t v) const { return offset_[v]; }
  uint32_t degree(uint32_t v) const { return offset_[v + 1] - offset_[v]; }
  uint32_t edge(uint32_t v, uint32_t j) const {
    const uint64_t h = hash3(seed_, v, uint64_t(j) + 2);
    if (h % 10 < 3) {  // a nearby node
      const int64_t t = int64_t(v) + int64_t((h >> 8) % 129) - 64;
      return uint32_t(((t % int64_t(n_)) + int64_t(n_)) % int64_t(n_));
    }
    return uint32_t((h >> 8) % n_);
  }

 private:
  uint32_t draw_degree(uint32_t v) const {
    const uint64_t h = hash3(seed_, v, 1);
    return h % 100 == 0 ? 24 + uint32_t((h >> 8) % 104) : 1 + uint32_t((h >> 8) % 11);
  }
  uint64_t seed_;
  uint32_t n_;
  std::vector<uint32_t> offset_;
};

// level[v]: BFS depth from the root, kUnvisited if unreachable.
std::vector<uint8_t> bfs_levels(const Graph& g, uint32_t root, uint32_t& max_level) {
  std::vector<uint8_t> level(g.nodes(), kUnvisited);
  level[root] = 0;
  max_level = 0;
  for (uint32_t l = 0; l + 1 < kUnvisited; ++l) {
    bool grew = false;
    for (uint32_t v = 0; v < g.nodes(); ++v) {
      if (level[v] != l) continue;
      for (uint32_t j = 0, d = g.degree(v); j < d; ++j) {
        const uint32_t t = g.edge(v, j);
        if (level[t] == kUnvisited) level[t] = uint8_t(l + 1), grew = true;
      }
    }
    if (!grew) break;
    max_level = l + 1;
  }
  return level;
}

struct ExpandProgram {
  Program p;
  uint32_t exit0, ld_mask, exit_idle, st_mask, ld_node, exit_noedge, loop, ld_edge, ld_vis, bra_vis, ld_cost,
      st_cost, st_upd, next, bra_loop, exit_end;

  explicit ExpandProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);
    p.op("S2R", {0}, {});                 // ctaid
    p.op("S2R", {3}, {});                 // tid
    p.op("LEA", {0}, {0, 3}, 9);          // tid = ctaid * 512 + tid
    p.op("ISETP.GE.AND", {}, {0});
    exit0 = p.exit();
    p.op("IADD3", {4}, {0, RZ});          // &mask[tid]
    if (isa.ampere()) p.op("ULDC.64", {}, {});
    p.op("LEA.HI.X.SX32", {5}, {0});
    ld_mask = p.ld(isa.ldg(1), 2, 4, 1);
    p.op("ISETP.NE.AND", {}, {2, RZ});
    exit_idle = p.exit();                 // @!P0 EXIT: not in the frontier
    st_mask = p.st(isa.stg(1), 4, RZ, 1);
    p.mov_imm(3, 8);
    p.op("IMAD.WIDE", {6}, {0, 3});       // &node[tid]
    ld_node = p.ld(isa.ldg(8), 6, 6, 8);  // {start, degree}
    p.op("IMAD.IADD", {8}, {6, 7});       // end
    p.op("ISETP.GE.AND", {}, {6, 8});
    exit_noedge = p.exit();
    p.mov_imm(9, 4);
    p.mov_imm(24, 1);
    p.op("IMAD.WIDE", {10}, {0, 9});      // &cost[tid]
    p.op("IMAD.WIDE", {12}, {6, 9});      // &edges[start]
    loop = p.here();
    ld_edge = p.ld(isa.ldg(4), 14, 12, 4);
    p.op("IADD3", {16}, {14, RZ});        // &visited[id]
    p.op("LEA.HI.X.SX32", {17}, {14});
    ld_vis = p.ld(isa.ldg(1), 16, 16, 1);
    p.op("ISETP.NE.AND", {}, {16, RZ});
    bra_vis = p.bra_forward();            // @P0 BRA: already visited
    ld_cost = p.ld(isa.ldg(4), 18, 10, 4);
    p.op("IMAD.WIDE", {20}, {14, 9});     // &cost[id]
    p.op("IADD3", {22}, {14, RZ});        // &updating[id]
    p.op("LEA.HI.X.SX32", {23}, {14});
    p.op("IADD3", {18}, {18, RZ}, 1);
    st_cost = p.st(isa.stg(4), 20, 18, 4);
    st_upd = p.st(isa.stg(1), 22, 24, 1);
    p.land(bra_vis);
    next = p.here();
    p.op("IADD3", {6}, {6, RZ}, 1);
    p.op("IADD3", {12}, {12, RZ}, 4);
    p.op("IADD3.X", {13}, {RZ, 13});
    p.op("ISETP.GE.AND", {}, {6, 8});
    bra_loop = p.bra(loop);               // @!P0 BRA
    exit_end = p.exit();
    p.finalize();
  }
};

struct UpdateProgram {
  Program p;
  uint32_t exit0, ld_upd, exit_idle, st_mask, st_vis, st_over, st_upd, exit_end;

  explicit UpdateProgram(uint32_t sm) : p(sm) {
    const Isa& isa = p.isa();
    p.mov_param(1);
    p.op("S2R", {0}, {});
    p.op("S2R", {3}, {});
    p.op("LEA", {0}, {0, 3}, 9);
    p.op("ISETP.GE.AND", {}, {0});
    exit0 = p.exit();
    p.op("IADD3", {2}, {0, RZ});          // &updating[tid]
    if (isa.ampere()) p.op("ULDC.64", {}, {});
    p.op("LEA.HI.X.SX32", {3}, {0});
    ld_upd = p.ld(isa.ldg(1), 4, 2, 1);
    p.op("ISETP.NE.AND", {}, {4, RZ});
    exit_idle = p.exit();
    p.op("IADD3", {6}, {0, RZ});          // &mask[tid]
    p.mov_imm(9, 1);
    p.op("LEA.HI.X.SX32", {7}, {0});
    p.op("IADD3", {4}, {0, RZ});          // &visited[tid]
    p.op("LEA.HI.X.SX32", {5}, {0});
    st_mask = p.st(isa.stg(1), 6, 9, 1);
    p.mov_param(10);                      // over
    p.mov_param(11);
    st_vis = p.st(isa.stg(1), 4, 9, 1);
    st_over = p.st(isa.stg(1), 10, 9, 1);
    st_upd = p.st(isa.stg(1), 2, RZ, 1);
    exit_end = p.exit();
    p.finalize();
  }
};

struct Buffers {
  uint64_t nodes, edges, mask, updating, visited, cost, over;
};

struct Bfs {
  const Graph& g;
  const std::vector<uint8_t>& level;
  const Buffers& buf;
  uint32_t threads;  // per block
};

uint32_t valid_lanes(uint64_t g0, uint64_t n) {
  return g0 >= n ? 0 : lanes_below(uint32_t(std::min<uint64_t>(n - g0, 32)));
}

template <class Pred>
uint32_t lanes_where(uint32_t among, Pred pred) {
  uint32_t m = 0;
  for (uint32_t a = among; a; a &= a - 1) {
    const uint32_t l = uint32_t(std::countr_zero(a));
    if (pred(l)) m |= 1u << l;
  }
  return m;
}

void emit_expand(const ExpandProgram& x, WarpWriter& w, const Bfs& s, uint32_t l, uint32_t g0) {
  const Buffers& b = s.buf;
  w.run(0, x.exit0, kFullMask);
  const uint32_t valid = valid_lanes(g0, s.g.nodes());
  w.op(x.exit0, ~valid);
  if (!valid) return;
  w.run(x.exit0 + 1, x.ld_mask, valid);
  w.mem_lin(x.ld_mask, valid, b.mask + g0, 1);
  w.run(x.ld_mask + 1, x.exit_idle, valid);
  const uint32_t front = lanes_where(valid, [&](uint32_t i) { return s.level[g0 + i] == l; });
  w.op(x.exit_idle, valid & ~front);
  if (!front) return;
  w.mem_lin(x.st_mask, front, b.mask + g0, 1);
  w.run(x.st_mask + 1, x.ld_node, front);
  w.mem_lin(x.ld_node, front, b.nodes + 8 * uint64_t(g0), 8);
  w.run(x.ld_node + 1, x.exit_noedge, front);
  std::array<uint32_t, 32> start{}, degree{}, id{};
  for (uint32_t a = front; a; a &= a - 1) {
    const uint32_t i = uint32_t(std::countr_zero(a));
    start[i] = s.g.start(g0 + i);
    degree[i] = s.g.degree(g0 + i);
  }
  uint32_t act = lanes_where(front, [&](uint32_t i) { return degree[i] > 0; });
  w.op(x.exit_noedge, front & ~act);
  if (!act) return;
  w.run(x.exit_noedge + 1, x.loop, act);
  for (uint32_t j = 0; act; ++j) {
    w.mem(x.ld_edge, act, [&](uint32_t i) { return b.edges + 4 * (uint64_t(start[i]) + j); });
    for (uint32_t a = act; a; a &= a - 1) {
      const uint32_t i = uint32_t(std::countr_zero(a));
      id[i] = s.g.edge(g0 + i, j);
    }
    w.run(x.ld_edge + 1, x.ld_vis, act);
    w.mem(x.ld_vis, act, [&](uint32_t i) { return b.visited + id[i]; });
    w.run(x.ld_vis + 1, x.bra_vis, act);
    // Visited now: settled at this level or before (level[id] <= l).
    const uint32_t seen = lanes_where(act, [&](uint32_t i) { return s.level[id[i]] <= l; });
    w.op(x.bra_vis, seen);
    if (const uint32_t fresh = act & ~seen) {
      w.mem_lin(x.ld_cost, fresh, b.cost + 4 * uint64_t(g0), 4);
      w.run(x.ld_cost + 1, x.st_cost, fresh);
      w.mem(x.st_cost, fresh, [&](uint32_t i) { return b.cost + 4 * uint64_t(id[i]); });
      w.mem(x.st_upd, fresh, [&](uint32_t i) { return b.updating + id[i]; });
    }
    w.run(x.next, x.bra_loop, act);
    const uint32_t cont = lanes_where(act, [&](uint32_t i) { return j + 1 < degree[i]; });
    w.op(x.bra_loop, cont);
    if (act & ~cont) w.op(x.exit_end, act & ~cont);
    act = cont;
  }
}

void emit_update(const UpdateProgram& u, WarpWriter& w, const Bfs& s, uint32_t l, uint32_t g0) {
  const Buffers& b = s.buf;
  w.run(0, u.exit0, kFullMask);
  const uint32_t valid = valid_lanes(g0, s.g.nodes());
  w.op(u.exit0, ~valid);
  if (!valid) return;
  w.run(u.exit0 + 1, u.ld_upd, valid);
  w.mem_lin(u.ld_upd, valid, b.updating + g0, 1);
  w.run(u.ld_upd + 1, u.exit_idle, valid);
  const uint32_t upd = lanes_where(valid, [&](uint32_t i) { return s.level[g0 + i] == l + 1; });
  w.op(u.exit_idle, valid & ~upd);
  if (!upd) return;
  w.run(u.exit_idle + 1, u.st_mask, upd);
  w.mem_lin(u.st_mask, upd, b.mask + g0, 1);
  w.run(u.st_mask + 1, u.st_vis, upd);
  w.mem_lin(u.st_vis, upd, b.visited + g0, 1);
  w.mem_lin(u.st_over, upd, b.over, 0);
  w.mem_lin(u.st_upd, upd, b.updating + g0, 1);
  w.op(u.exit_end, upd);
}

struct Programs {
  ExpandProgram expand;
  UpdateProgram update;
  explicit Programs(uint32_t sm) : expand(sm), update(sm) {}
};

// One search: max_level + 1 iterations of (reset over, expand, update).
// Without a trace it only counts the warp instructions.
uint64_t run_bfs(const Programs& p, const Bfs& s, uint32_t max_level, TraceBuilder* trace) {
  const uint32_t n = s.g.nodes();
  const uint32_t grid = uint32_t(ceil_div(n, s.threads));
  const uint32_t warps = s.threads / 32;
  const LaunchSpec expand{"_Z10bfs_expandP4NodePiPbS2_S2_S1_i", Dim3{grid, 1, 1}, Dim3{s.threads, 1, 1}, 0};
  const LaunchSpec update{"_Z10bfs_updatePbS_S_S_i", Dim3{grid, 1, 1}, Dim3{s.threads, 1, 1}, 0};
  uint64_t count = 0;
  const auto launch = [&](const LaunchSpec& spec, const Program& prog, auto emit) {
    if (!trace) {
      WarpWriter counter(prog, nullptr);
      for (uint32_t blk = 0; blk < grid; ++blk)
        for (uint32_t w = 0; w < warps; ++w) emit(counter, blk * s.threads + w * 32);
      count += counter.count();
      return;
    }
    KernelWriter kw(*trace, spec, prog);
    for (uint32_t blk = 0; blk < grid; ++blk) {
      kw.begin_block(Dim3{blk, 0, 0});
      for (uint32_t w = 0; w < warps; ++w) {
        WarpWriter ww = kw.warp(w);
        emit(ww, blk * s.threads + w * 32);
      }
      kw.end_block();
    }
    kw.close();
  };
  for (uint32_t l = 0; l <= max_level; ++l) {
    if (trace) trace->memcpy_htod(s.buf.over, 1);  // over = false
    launch(expand, p.expand.p, [&](WarpWriter& w, uint32_t g0) { emit_expand(p.expand, w, s, l, g0); });
    launch(update, p.update.p, [&](WarpWriter& w, uint32_t g0) { emit_update(p.update, w, s, l, g0); });
  }
  return count;
}

uint32_t threads_per_block(uint32_t n) { return n >= kMaxThreads ? kMaxThreads : uint32_t(ceil_div(n, 32) * 32); }

}  // namespace

void generate_graph(TraceBuilder& trace) {
  const GenOptions& o = trace.options();
  const Programs progs(o.arch);
  const Buffers none{};

  // Size the graph so one search is about the requested size: guess, count
  // exactly with the emitter, rescale once.
  const auto count_for = [&](uint64_t n) {
    const Graph g(o.seed, uint32_t(n));
    uint32_t max_level = 0;
    const std::vector<uint8_t> level = bfs_levels(g, 0, max_level);
    return run_bfs(progs, Bfs{g, level, none, threads_per_block(uint32_t(n))}, max_level, nullptr);
  };
  uint64_t n = std::clamp<uint64_t>(o.size / 12, kMinNodes, kMaxNodes);
  uint64_t per_search = count_for(n);
  const uint64_t rescaled =
      std::clamp<uint64_t>(uint64_t(double(n) * double(o.size) / double(per_search)), kMinNodes, kMaxNodes);
  if (rescaled * 20 < n * 19 || rescaled * 20 > n * 21) {
    n = rescaled;
    per_search = count_for(n);
  }
  const uint64_t searches = std::max<uint64_t>(1, round_div(o.size, per_search));

  const Graph g(o.seed, uint32_t(n));
  Buffers buf{};
  buf.nodes = trace.alloc(8 * n);
  buf.edges = trace.alloc(4 * g.edges());
  buf.mask = trace.alloc(n);
  buf.updating = trace.alloc(n);
  buf.visited = trace.alloc(n);
  buf.cost = trace.alloc(4 * n);
  buf.over = trace.alloc(1);
  trace.memcpy_htod(buf.nodes, 8 * n);
  trace.memcpy_htod(buf.edges, 4 * g.edges());
  Rng rng(o.seed, 4);
  for (uint64_t k = 0; k < searches; ++k) {
    const uint32_t root = k == 0 ? 0 : uint32_t(rng.below(n));
    trace.memcpy_htod(buf.mask, n);  // the root alone in the frontier
    trace.memcpy_htod(buf.updating, n);
    trace.memcpy_htod(buf.visited, n);
    trace.memcpy_htod(buf.cost, 4 * n);
    uint32_t max_level = 0;
    const std::vector<uint8_t> level = bfs_levels(g, root, max_level);
    run_bfs(progs, Bfs{g, level, buf, threads_per_block(uint32_t(n))}, max_level, &trace);
  }
}

}  // namespace lockstep::gen
