#include "core/abstract/basic_blocks.h"

#include <algorithm>

namespace lockstep {

void FallThrough::grow(const StaticTable& table) {
  for (uint32_t s = uint32_t(pc_.size()); s < table.size(); ++s) pc_.push_back(table.inst(s).pc);
  next_.resize(pc_.size(), kNoStatic);
}

void BasicBlocks::Builder::add_run(uint32_t first, uint32_t last) {
  mark(leader_, first);
  mark(end_, last);
}

BasicBlocks BasicBlocks::Builder::build(const StaticTable& table, const KernelProgram& program,
                                        const FallThrough& fall) const {
  const uint32_t n = table.size();
  auto flag = [](const std::vector<uint8_t>& v, uint32_t s) { return s < v.size() && v[s]; };
  // Which statics the runs reach, and how many fall through to each.
  std::vector<uint8_t> reached(n, 0), ends(n, 0), leaders(n, 0);
  std::vector<uint32_t> preds(n, 0);
  for (uint32_t s = 0; s < n; ++s) {
    leaders[s] = flag(leader_, s);
    ends[s] = flag(end_, s);
  }
  for (uint32_t s = 0; s < n; ++s) {
    if (s < table.size() && fall.next(s) != kNoStatic && fall.next(s) < n) ++preds[fall.next(s)];
    const InstKind k = program[s].kind;
    if (k == InstKind::kBranch || k == InstKind::kExit) ends[s] = 1;
  }
  // Walk each chain from a leader; every instruction after an end starts a block too.
  std::vector<uint32_t> pending;
  for (uint32_t s = 0; s < n; ++s)
    if (leaders[s]) pending.push_back(s);
  for (uint32_t s = 0; s < n; ++s)
    if (preds[s] > 1) {
      if (!leaders[s]) pending.push_back(s);
      leaders[s] = 1;
    }
  std::vector<uint32_t> firsts;
  while (!pending.empty()) {
    const uint32_t start = pending.back();
    pending.pop_back();
    if (reached[start]) continue;
    firsts.push_back(start);
    uint32_t s = start;
    for (;;) {
      reached[s] = 1;
      const uint32_t next = fall.next(s);
      if (ends[s] || next == kNoStatic || next >= n) {
        if (next != kNoStatic && next < n && !reached[next]) {
          leaders[next] = 1;
          pending.push_back(next);
        }
        break;
      }
      if (leaders[next] || reached[next]) break;
      s = next;
    }
  }
  std::sort(firsts.begin(), firsts.end(), [&](uint32_t a, uint32_t b) {
    const uint64_t pa = table.inst(a).pc, pb = table.inst(b).pc;
    return pa != pb ? pa < pb : a < b;
  });
  BasicBlocks out;
  out.starts_.assign(n, kNoStatic);
  for (uint32_t start : firsts) {
    BasicBlock b;
    b.begin = uint32_t(out.insts_.size());
    uint32_t s = start;
    for (;;) {
      out.insts_.push_back(s);
      const uint32_t next = fall.next(s);
      if (ends[s] || next == kNoStatic || next >= n || leaders[next]) break;
      s = next;
    }
    b.size = uint32_t(out.insts_.size()) - b.begin;
    out.starts_[start] = uint32_t(out.blocks_.size());
    out.blocks_.push_back(b);
  }
  return out;
}

}  // namespace lockstep
