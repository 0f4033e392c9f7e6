#pragma once
// Semantic comparison of two traces: same kernels (header fields), same
// memcpys, and for every block the same warps with the same instructions
// (PC, opcode, registers, width, immediate, line), masks and per-lane
// addresses. Returns a description of the first difference, or "".
#include <bit>
#include <sstream>
#include <string>

#include "frontend/trace/trace_source.h"

namespace lockstep::test {

inline std::string describe_static(const StaticTable& t, uint32_t id) {
  const StaticInstruction& s = t.inst(id);
  std::ostringstream os;
  os << std::hex << "pc=" << s.pc << std::dec << " " << t.opcode(s.opcode_id) << " d=";
  for (auto r : s.dsts) os << r.str() << ",";
  os << " s=";
  for (auto r : s.srcs) os << r.str() << ",";
  os << " w=" << s.mem_width << " imm=" << (s.has_immediate ? s.immediate : 0) << " line=" << (s.has_line ? s.line : 0);
  if (s.has_imm2) os << " imm2=" << s.imm2;
  if (s.value_marker != ValueMarker::kNone) os << " values=" << int(s.value_marker);
  if (s.gmma_commit >= 0) os << " commit=" << int(s.gmma_commit);
  if (s.transfer_dropped) os << " transfer-dropped";
  return os.str();
}

// `strict_headers`: compare header field lists too (false when one side was
// re-labelled, e.g. raw tracer output exported as grouped .traceg).
inline std::string compare_traces(TraceSource& a, TraceSource& b, bool strict_headers = true) {
  const TraceManifest& ma = a.manifest();
  const TraceManifest& mb = b.manifest();
  if (ma.kernels.size() != mb.kernels.size()) return "kernel count differs";
  if (ma.commands.size() != mb.commands.size()) return "command count differs";
  for (size_t i = 0; i < ma.commands.size(); ++i) {
    const TraceCommand &ca = ma.commands[i], &cb = mb.commands[i];
    if (ca.kind != cb.kind || ca.kernel_index != cb.kernel_index || !(ca.memcpy == cb.memcpy))
      return "command " + std::to_string(i) + " differs";
  }
  for (uint32_t k = 0; k < ma.kernels.size(); ++k) {
    const KernelInfo &ka = ma.kernels[k], &kb = mb.kernels[k];
    const std::string where = "kernel " + std::to_string(k) + ": ";
    if (ka.name != kb.name || ka.kernel_id != kb.kernel_id || ka.grid != kb.grid || ka.block != kb.block ||
        ka.nregs != kb.nregs || ka.shmem_bytes != kb.shmem_bytes || ka.binary_version != kb.binary_version ||
        ka.tracer_version != kb.tracer_version || ka.lineinfo != kb.lineinfo)
      return where + "typed header fields differ";
    if (strict_headers && ka.header_fields != kb.header_fields) return where + "header field list differs";
    auto ca = a.open_blocks(k);
    auto cb = b.open_blocks(k);
    BlockTrace ba, bb;
    uint64_t n = 0;
    for (;; ++n) {
      const bool more_a = ca->next(ba), more_b = cb->next(bb);
      if (more_a != more_b) return where + "block count differs after " + std::to_string(n) + " blocks";
      if (!more_a) break;
      const std::string wb = where + "block " + ba.id.str() + ": ";
      if (ba.id != bb.id) return where + "block " + std::to_string(n) + " is " + ba.id.str() + " vs " + bb.id.str();
      if (ba.has_cluster != bb.has_cluster || (ba.has_cluster && !(ba.cluster == bb.cluster)))
        return wb + "cluster lines differ";
      if (ba.warps.size() != bb.warps.size()) return wb + "warp count differs";
      const StaticTable &ta = a.static_table(k), &tb = b.static_table(k);
      for (size_t w = 0; w < ba.warps.size(); ++w) {
        const WarpTrace &wa = ba.warps[w], &wbt = bb.warps[w];
        if (wa.warp_id != wbt.warp_id) return wb + "warp ids differ";
        if (wa.insts.size() != wbt.insts.size()) return wb + "warp " + std::to_string(wa.warp_id) + " length differs";
        for (size_t i = 0; i < wa.insts.size(); ++i) {
          const WarpInstruction &ia = wa.insts[i], &ib = wbt.insts[i];
          const std::string wi = wb + "warp " + std::to_string(wa.warp_id) + " inst " + std::to_string(i) + ": ";
          const std::string sa = describe_static(ta, ia.static_id), sb = describe_static(tb, ib.static_id);
          if (sa != sb) return wi + sa + " vs " + sb;
          if (ia.active_mask != ib.active_mask) return wi + "mask differs";
          LaneBuffer bufa, bufb;
          const auto la = wa.lane_addresses(ia, ta, bufa), lb = wbt.lane_addresses(ib, tb, bufb);
          if (la.size() != lb.size() || !std::equal(la.begin(), la.end(), lb.begin())) return wi + "addresses differ";
        }
      }
    }
  }
  return "";
}

}  // namespace lockstep::test
