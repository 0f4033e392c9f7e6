#include "frontend/text/text_writer.h"

#include <bit>
#include <charconv>

#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

void put_dec(std::string& s, int64_t v) {
  char tmp[24];
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
  s.append(tmp, end);
}
void put_udec(std::string& s, uint64_t v) {
  char tmp[24];
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
  s.append(tmp, end);
}
void put_hex(std::string& s, uint64_t v, int min_digits) {
  char tmp[24];
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof tmp, v, 16);
  for (int pad = min_digits - int(end - tmp); pad > 0; --pad) s.push_back('0');
  s.append(tmp, end);
}
void put_regs(std::string& s, const std::vector<RegRef>& regs) {
  put_udec(s, regs.size());
  s.push_back(' ');
  for (const RegRef& r : regs) {
    s.append(r.str());
    s.push_back(' ');
  }
}

// Like the tracer: "base stride" only for one contiguous run of two or more
// active lanes (Accel-Sim expands it lane by lane from the first active lane
// and stops at the first gap), else "base deltas".
void put_addresses(std::string& s, std::span<const uint64_t> a, uint32_t mask) {
  if (a.empty()) {
    s.append("1 0x0 0 ");
    return;
  }
  const uint32_t run = mask >> std::countr_zero(mask);
  bool uniform = a.size() > 1 && (run & (run + 1)) == 0;
  const int64_t stride = a.size() > 1 ? int64_t(a[1] - a[0]) : 0;
  for (size_t i = 2; i < a.size() && uniform; ++i) uniform = int64_t(a[i] - a[i - 1]) == stride;
  s.append(uniform ? "1 0x" : "2 0x");
  put_hex(s, a[0], 1);
  s.push_back(' ');
  if (uniform) {
    put_dec(s, stride);
    s.push_back(' ');
    return;
  }
  for (size_t i = 1; i < a.size(); ++i) {
    put_dec(s, int64_t(a[i] - a[i - 1]));
    s.push_back(' ');
  }
}

}  // namespace

TextSink::~TextSink() {
  if (!buf_.empty() && file_) std::fwrite(buf_.data(), 1, buf_.size(), file_);
}

void TextSink::flush() {
  if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size())
    throw TraceError(name_ + ": write failed");
  buf_.clear();
}

void write_kernel_header(TextSink& out, const KernelInfo& k) {
  std::string& s = out.buffer();
  for (const auto& [key, value] : k.header_fields) {
    s.append("-").append(key).append(" = ").append(value).append("\n");
  }
  s.append("\n");
  if (!k.format_comment.empty()) s.append(k.format_comment).append("\n");
  s.append("\n\n");
  out.maybe_flush();
}

void append_block_place(std::string& s, const Dim3& id, const ClusterPlace* cluster) {
  auto put_dim = [&](const char* key, const Dim3& d) {
    s.append(key);
    put_udec(s, d.x);
    s.push_back(',');
    put_udec(s, d.y);
    s.push_back(',');
    put_udec(s, d.z);
    s.push_back('\n');
  };
  put_dim("thread block = ", id);
  if (!cluster) return;
  put_dim("cluster id = ", cluster->id);
  put_dim("cluster cta = ", cluster->cta);
  s.append("cluster rank = ");
  put_udec(s, cluster->rank);
  s.push_back('\n');
}

void write_block_text(TextSink& out, const KernelInfo& k, const BlockTrace& block, const StaticTable& table) {
  std::string& s = out.buffer();
  s.append("\n#BEGIN_TB\n\n");
  append_block_place(s, block.id, block.has_cluster ? &block.cluster : nullptr);
  std::string prefix;
  for (const WarpTrace& w : block.warps) {
    if (k.lines_prefixed()) {
      prefix.clear();
      for (uint32_t v : {block.id.x, block.id.y, block.id.z, w.warp_id}) {
        put_udec(prefix, v);
        prefix.push_back(' ');
      }
    }
    s.append("\nwarp = ");
    put_udec(s, w.warp_id);
    s.append("\ninsts = ");
    put_udec(s, w.insts.size());
    s.push_back('\n');
    LaneBuffer lanes;
    for (const WarpInstruction& wi : w.insts) {
      const StaticInstruction& st = table.inst(wi.static_id);
      s.append(prefix);
      if (k.lineinfo && st.has_line) {
        put_udec(s, st.line);
        s.push_back(' ');
      }
      put_hex(s, st.pc, 4);
      s.push_back(' ');
      put_hex(s, wi.active_mask, 8);
      s.push_back(' ');
      put_regs(s, st.dsts);
      s.append(table.opcode(st.opcode_id));
      s.push_back(' ');
      put_regs(s, st.srcs);
      if (st.gmma_commit >= 0) {
        put_udec(s, uint64_t(st.gmma_commit));
        s.push_back(' ');
      }
      put_udec(s, st.mem_width);
      s.push_back(' ');
      if (st.is_memory()) put_addresses(s, w.lane_addresses(wi, lanes), wi.active_mask);
      if (k.has_immediate_field()) {
        put_dec(s, st.has_immediate ? st.immediate : 0);
        s.push_back(' ');
      }
      if (st.has_imm2) {
        put_dec(s, st.imm2);
        s.push_back(' ');
      }
      // Register values are not kept: a line that had them says NoVal.
      if (st.value_marker != ValueMarker::kNone) s.append("NoVal ");
      s.push_back('\n');
      out.maybe_flush();
    }
  }
  s.append("\n#END_TB\n");
  out.maybe_flush();
}

void write_kernelslist(TextSink& out, const TraceManifest& m) {
  std::string& s = out.buffer();
  for (const TraceCommand& c : m.commands) {
    if (c.kind == TraceCommand::Kind::kMemcpy) {
      s.append("MemcpyHtoD,0x");
      put_hex(s, c.memcpy.address, 16);
      s.push_back(',');
      put_udec(s, c.memcpy.bytes);
    } else {
      s.append(m.kernels.at(c.kernel_index).source_file);
    }
    s.push_back('\n');
  }
  out.maybe_flush();
}

}  // namespace lockstep
