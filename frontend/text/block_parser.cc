#include "frontend/text/block_parser.h"

#include <algorithm>
#include <bit>

#include "frontend/text/text_parse.h"
#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

constexpr uint32_t kMaxRegOperands = 64;

[[noreturn]] void fail(const std::string& file, uint64_t line_no, const std::string& what) {
  throw TraceError(file + ":" + std::to_string(line_no) + ": " + what);
}

class LineFields {
 public:
  LineFields(std::string_view line, const std::string& file, uint64_t line_no)
      : tok_(line), file_(file), line_no_(line_no) {}

  std::string_view token(const char* what) {
    std::string_view t = tok_.next();
    if (t.empty()) fail(file_, line_no_, std::string("line ends before ").append(what));
    return t;
  }
  uint32_t dec32(const char* what) {
    const std::string_view t = token(what);
    uint32_t v = 0;
    if (!parse_dec_u32(t, v)) fail(file_, line_no_, std::string("bad ") + what + " " + quoted_excerpt(t));
    return v;
  }
  uint64_t hex64(const char* what) {
    const std::string_view t = token(what);
    uint64_t v = 0;
    if (!parse_hex_u64(t, v)) fail(file_, line_no_, std::string("bad hex ") + what + " " + quoted_excerpt(t));
    return v;
  }
  int64_t int64(const char* what) {
    const std::string_view t = token(what);
    int64_t v = 0;
    if (!parse_int64(t, v)) fail(file_, line_no_, std::string("bad ") + what + " " + quoted_excerpt(t));
    return v;
  }
  void regs(std::vector<RegRef>& out, const char* what) {
    const uint32_t n = dec32(what);
    if (n > kMaxRegOperands) fail(file_, line_no_, std::string("implausible ") + what + " " + std::to_string(n));
    out.clear();
    for (uint32_t i = 0; i < n; ++i) {
      const std::string_view t = token("register operand");
      const auto reg = RegRef::parse(t);
      if (!reg) fail(file_, line_no_, "bad register " + quoted_excerpt(t));
      out.push_back(*reg);
    }
  }
  uint64_t dec64(const char* what) {
    const std::string_view t = token(what);
    uint64_t v = 0;
    if (!parse_dec_u64(t, v)) fail(file_, line_no_, std::string("bad ") + what + " " + quoted_excerpt(t));
    return v;
  }
  [[noreturn]] void fail_here(const std::string& what) const { fail(file_, line_no_, what); }
  Tokenizer& tokens() { return tok_; }

 private:
  Tokenizer tok_;
  const std::string& file_;
  uint64_t line_no_;
};

bool plausible_opcode(std::string_view t) {
  if (t.empty() || !(t[0] >= 'A' && t[0] <= 'Z')) return false;
  return std::all_of(t.begin(), t.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
  });
}

// The opcode's first part ("HGMMA" of "HGMMA.64x128x16.F32").
std::string_view base_opcode(std::string_view opcode) { return opcode.substr(0, opcode.find('.')); }

// Warpgroup MMAs: version 6 lines carry a commit-group flag after the sources.
bool is_gmma(std::string_view opcode) { return base_opcode(opcode).ends_with("GMMA"); }

// Tensor-memory-accelerator and bulk copies, whose lines (when the tracer
// records their memory operand) list the transfer instead of lane addresses.
bool is_bulk_copy(std::string_view opcode) {
  static constexpr std::string_view kOps[] = {"UTMALDG", "UTMASTG", "UTMAPF",  "UTMAREDG",
                                              "UBLKCP",  "UBLKPF",  "UBLKRED"};
  const std::string_view base = base_opcode(opcode);
  return std::find(std::begin(kOps), std::end(kOps), base) != std::end(kOps);
}

constexpr uint32_t kMaxTransfers = 1u << 20;

// After the width of a TMA/bulk copy: the mbarrier address, the multicast
// flag (1: then the mask of the cluster's CTAs it goes to), the bytes moved
// and those out of bounds, then address mode 3 (a count and that many
// addresses) or 4 (a base, a count and the count - 1 deltas between
// consecutive addresses). Checked and skipped.
void skip_bulk_transfer(LineFields& f) {
  f.hex64("TMA mbarrier address");
  const uint32_t multicast = f.dec32("TMA multicast flag");
  if (multicast > 1) f.fail_here("TMA multicast flag " + std::to_string(multicast) + " (expected 0 or 1)");
  if (multicast) f.hex64("TMA multicast CTA mask");
  f.dec64("TMA byte count");
  f.dec64("TMA out-of-bounds byte count");
  const uint32_t mode = f.dec32("TMA address mode");
  if (mode == 3) {
    const uint32_t n = f.dec32("TMA transfer count");
    if (n > kMaxTransfers) f.fail_here("implausible TMA transfer count " + std::to_string(n));
    for (uint32_t i = 0; i < n; ++i) f.hex64("TMA transfer address");
  } else if (mode == 4) {
    f.hex64("TMA base address");
    const uint32_t n = f.dec32("TMA transfer count");
    if (n > kMaxTransfers) f.fail_here("implausible TMA transfer count " + std::to_string(n));
    for (uint32_t i = 1; i < n; ++i) f.int64("TMA address delta");
  } else {
    f.fail_here("unknown TMA address mode " + std::to_string(mode) + " (expected 3 or 4)");
  }
}

// Version 6 ends a line with an optional second immediate, then "NoVal", or
// "Val" and per destination, then per source register, 1 and the value all
// lanes share or 32 and each lane's value (checked, not kept).
void read_v6_tail(LineFields& f, StaticInstruction& st) {
  if (f.tokens().at_end()) return;
  int64_t imm2 = 0;
  if (parse_int64(f.tokens().peek(), imm2)) {
    f.tokens().next();
    st.has_imm2 = true;
    st.imm2 = imm2;
  }
  if (f.tokens().at_end()) return;
  const std::string_view marker = f.token("register values");
  if (marker == "NoVal") {
    st.value_marker = ValueMarker::kNoVal;
  } else if (marker == "Val") {
    const size_t regs = st.dsts.size() + st.srcs.size();
    for (size_t r = 0; r < regs; ++r) {
      const uint32_t distinct = f.dec32("register value count");
      if (distinct != 1 && distinct != 32)
        f.fail_here("register value count " + std::to_string(distinct) + " (expected 1 or 32)");
      for (uint32_t v = 0; v < distinct; ++v) f.hex64("register value");
    }
    st.value_marker = ValueMarker::kValDropped;
  } else {
    f.fail_here("expected Val or NoVal after the immediates, got " + quoted_excerpt(marker));
  }
}

}  // namespace

void parse_instruction_line(std::string_view line, const KernelInfo& k, StaticTable& table, ParsedLine& out,
                            const std::string& file, uint64_t line_no) {
  LineFields f(line, file, line_no);
  if (k.lines_prefixed()) {
    for (uint32_t& b : out.block) b = f.dec32("thread block index");
    out.warp = f.dec32("warp id");
    // Raw version 6 output goes on with the block's cluster id, its index in
    // the cluster and its rank there.
    out.has_cluster = k.raw_tracer_output && k.has_v6_fields();
    if (out.has_cluster) {
      ClusterPlace& c = out.cluster;
      for (uint32_t* v : {&c.id.x, &c.id.y, &c.id.z, &c.cta.x, &c.cta.y, &c.cta.z, &c.rank})
        *v = f.dec32("cluster field");
    }
  }
  StaticInstruction& st = out.st;
  st.has_line = k.lineinfo;
  st.line = k.lineinfo ? f.dec32("source line number") : 0;
  st.pc = f.hex64("PC");
  const uint64_t mask = f.hex64("active mask");
  if (mask > 0xffffffffull) fail(file, line_no, "active mask wider than 32 lanes");
  out.mask = uint32_t(mask);
  f.regs(st.dsts, "destination count");
  const std::string_view opcode = f.token("opcode");
  if (!plausible_opcode(opcode)) fail(file, line_no, "expected an opcode, got " + quoted_excerpt(opcode));
  st.opcode_id = table.intern_opcode(opcode);
  f.regs(st.srcs, "source count");
  st.gmma_commit = -1;
  if (k.has_v6_fields() && is_gmma(opcode)) {
    const uint32_t commit = f.dec32("GMMA commit-group flag");
    if (commit > 1) fail(file, line_no, "GMMA commit-group flag " + std::to_string(commit) + " (expected 0 or 1)");
    st.gmma_commit = int8_t(commit);
  }
  st.mem_width = f.dec32("memory width");
  st.transfer_dropped = false;
  out.num_addrs = 0;
  if (st.mem_width > 0 && is_bulk_copy(opcode)) {
    skip_bulk_transfer(f);
    st.mem_width = 0;
    st.transfer_dropped = true;
  } else if (st.mem_width > 0) {
    const uint32_t mode = f.dec32("address mode");
    const int active = std::popcount(out.mask);
    switch (mode) {
      case 0:  // one address per active lane
        for (int i = 0; i < active; ++i) out.addrs[out.num_addrs++] = f.hex64("lane address");
        break;
      case 1: {  // base, stride over the active lanes
        const uint64_t base = f.hex64("base address");
        const int64_t stride = f.int64("address stride");
        for (int i = 0; i < active; ++i) out.addrs[out.num_addrs++] = base + uint64_t(stride) * uint64_t(i);
        break;
      }
      case 2: {  // base, then a signed delta for every further active lane
        uint64_t addr = f.hex64("base address");
        for (int i = 0; i < active; ++i) {
          if (i > 0) addr += uint64_t(f.int64("address delta"));
          out.addrs[out.num_addrs++] = addr;
        }
        break;
      }
      default:
        fail(file, line_no, "unknown address mode " + std::to_string(mode) + " (expected 0, 1 or 2)");
    }
  }
  st.has_immediate = false;
  st.immediate = 0;
  if (k.has_immediate_field() && !f.tokens().at_end()) {
    st.immediate = f.int64("immediate");
    st.has_immediate = true;
  }
  st.has_imm2 = false;
  st.imm2 = 0;
  st.value_marker = ValueMarker::kNone;
  if (k.has_v6_fields()) read_v6_tail(f, st);
  if (!f.tokens().at_end())
    fail(file, line_no, "unexpected trailing field " + quoted_excerpt(trim(f.tokens().rest())));
}

namespace {

// Accumulates one block's warps while lines are parsed.
class BlockBuilder {
 public:
  BlockBuilder(const KernelInfo& k, const std::string& file, StaticTable& table, BlockTrace& out)
      : k_(k), file_(file), table_(table), out_(out) {
    out_.warps.clear();
  }

  WarpTrace& warp(uint32_t warp_id, uint64_t line_no) {
    if (current_ && current_->warp_id == warp_id) return *current_;
    if (warp_id >= k_.warps_per_block())
      fail(file_, line_no, "warp " + std::to_string(warp_id) + " outside a block of " +
                               std::to_string(k_.threads_per_block()) + " threads");
    for (WarpTrace& w : out_.warps)
      if (w.warp_id == warp_id) return *(current_ = &w);
    out_.warps.emplace_back();
    out_.warps.back().warp_id = warp_id;
    return *(current_ = &out_.warps.back());
  }
  void new_warp(uint32_t warp_id, uint64_t line_no) {
    for (const WarpTrace& w : out_.warps)
      if (w.warp_id == warp_id) fail(file_, line_no, "warp " + std::to_string(warp_id) + " appears twice in this block");
    current_ = nullptr;
    warp(warp_id, line_no);
  }
  void append(WarpTrace& w, const ParsedLine& p) {
    const uint32_t id = table_.intern(p.st);
    if (p.st.is_memory()) {
      w.push(id, p.mask, std::span<const uint64_t>(p.addrs.data(), p.num_addrs));
    } else {
      w.push(id, p.mask);
    }
  }
  // Adds a line to warp `w`. The tracer writes an LDGSTS as two lines, its
  // shared-memory operand's addresses and then its global operand's, next to
  // each other in the warp's stream; Accel-Sim's post-processing keeps the
  // second. So an LDGSTS line waits until the warp's next line: one with the
  // same PC and mask is its second half and replaces it.
  void add(WarpTrace& w, const ParsedLine& p) {
    const bool ldgsts = is_ldgsts(p.st.opcode_id);
    for (size_t i = 0; i < held_.size(); ++i) {
      if (held_[i].warp_id != w.warp_id) continue;
      const bool pair = ldgsts && held_[i].line.st.pc == p.st.pc && held_[i].line.mask == p.mask;
      if (!pair) append(w, held_[i].line);
      held_.erase(held_.begin() + std::ptrdiff_t(i));
      if (pair) {
        append(w, p);
        return;
      }
      break;
    }
    if (ldgsts) {
      held_.push_back({w.warp_id, p});
      return;
    }
    append(w, p);
  }
  // Appends the LDGSTS lines still waiting (at the block's end).
  void flush() {
    for (const Held& h : held_)
      for (WarpTrace& w : out_.warps)
        if (w.warp_id == h.warp_id) append(w, h.line);
    held_.clear();
  }
  WarpTrace* current() { return current_; }

 private:
  bool is_ldgsts(uint32_t opcode_id) {
    if (opcode_id >= ldgsts_.size()) ldgsts_.resize(opcode_id + 1, -1);
    if (ldgsts_[opcode_id] < 0) ldgsts_[opcode_id] = base_opcode(table_.opcode(opcode_id)) == "LDGSTS";
    return ldgsts_[opcode_id];
  }

  struct Held {
    uint32_t warp_id;
    ParsedLine line;
  };

  const KernelInfo& k_;
  const std::string& file_;
  StaticTable& table_;
  BlockTrace& out_;
  WarpTrace* current_ = nullptr;
  std::vector<Held> held_;
  std::vector<int8_t> ldgsts_;  // per opcode id: 1 LDGSTS, 0 not, -1 not looked at yet
};

bool parse_block_id(std::string_view value, Dim3& id) {
  uint32_t xyz[3];
  for (int i = 0; i < 3; ++i) {
    const size_t comma = value.find(',');
    if ((i < 2) != (comma != std::string_view::npos) || !parse_dec_u32(trim(value.substr(0, comma)), xyz[i])) return false;
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
  }
  id = Dim3{xyz[0], xyz[1], xyz[2]};
  return true;
}

void check_in_grid(const KernelInfo& k, const Dim3& id, const std::string& file, uint64_t line_no) {
  if (id.x >= k.grid.x || id.y >= k.grid.y || id.z >= k.grid.z)
    fail(file, line_no, "thread block " + id.str() + " outside grid " + k.grid.str());
}

// "key = value" lines of the grouped form.
bool split_assignment(std::string_view line, std::string_view key, std::string_view& value) {
  if (!line.starts_with(key)) return false;
  std::string_view rest = trim(line.substr(key.size()));
  if (rest.empty() || rest.front() != '=') return false;
  value = trim(rest.substr(1));
  return true;
}

// The "cluster id = x,y,z", "cluster cta = x,y,z" and "cluster rank = r"
// lines of a block (version 6 traces), between its "thread block" line and
// its first warp; all three or none.
class ClusterLines {
 public:
  void read(std::string_view line, const std::string& file, uint64_t line_no, bool in_place) {
    std::string_view value;
    int which = -1;
    if (split_assignment(line, "cluster id", value)) which = 0;
    else if (split_assignment(line, "cluster cta", value)) which = 1;
    else if (split_assignment(line, "cluster rank", value)) which = 2;
    if (which < 0) fail(file, line_no, "unknown block line " + quoted_excerpt(line));
    if (!in_place) fail(file, line_no, "a cluster line belongs after 'thread block =' and before the first 'warp ='");
    if (seen_[which]) fail(file, line_no, std::string("second '") + kNames[which] + " =' line in one block");
    seen_[which] = true;
    first_line_ = first_line_ ? first_line_ : line_no;
    const bool ok = which == 0   ? parse_block_id(value, place_.id)
                    : which == 1 ? parse_block_id(value, place_.cta)
                                 : parse_dec_u32(value, place_.rank);
    if (!ok) fail(file, line_no, "bad " + std::string(kNames[which]) + " " + quoted_excerpt(value));
  }
  void finish(BlockTrace& out, const std::string& file, uint64_t block_line) const {
    const int seen = int(seen_[0]) + int(seen_[1]) + int(seen_[2]);
    out.has_cluster = seen == 3;
    if (seen == 3) out.cluster = place_;
    if (seen != 0 && seen != 3)
      fail(file, first_line_ ? first_line_ : block_line,
           "a block gives some of its cluster lines only (cluster id, cluster cta and cluster rank go together)");
  }

 private:
  static constexpr const char* kNames[] = {"cluster id", "cluster cta", "cluster rank"};
  bool seen_[3] = {false, false, false};
  uint64_t first_line_ = 0;
  ClusterPlace place_;
};

void parse_raw_block(const BlockText& text, const KernelInfo& k, const std::string& file, StaticTable& table,
                     BlockTrace& out) {
  BlockBuilder builder(k, file, table, out);
  out.has_cluster = false;
  ParsedLine p;
  bool have_id = false;
  std::string_view rest = text.text;
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const size_t sp = line.find(' ');
    uint64_t line_no = 0;
    if (sp == std::string_view::npos || !parse_dec_u64(line.substr(0, sp), line_no))
      throw TraceError(file + ": internal error: raw block line without its line number");
    line = line.substr(sp + 1);
    parse_instruction_line(line, k, table, p, file, line_no);
    const Dim3 id{p.block[0], p.block[1], p.block[2]};
    if (!have_id) {
      check_in_grid(k, id, file, line_no);
      out.id = id;
      out.has_cluster = p.has_cluster;
      out.cluster = p.cluster;
      have_id = true;
    } else if (p.has_cluster && !(p.cluster == out.cluster)) {
      fail(file, line_no, "the cluster fields differ from those of block " + id.str() + "'s first line");
    }
    builder.add(builder.warp(p.warp, line_no), p);
  }
  builder.flush();
  std::sort(out.warps.begin(), out.warps.end(),
            [](const WarpTrace& a, const WarpTrace& b) { return a.warp_id < b.warp_id; });
}

}  // namespace

void parse_block_text(const BlockText& text, const KernelInfo& k, const std::string& trace_file, StaticTable& table,
                      BlockTrace& out) {
  const std::string& file = text.label.empty() ? trace_file : text.label;
  if (text.numbered) {
    parse_raw_block(text, k, file, table, out);
    return;
  }
  BlockBuilder builder(k, file, table, out);
  ClusterLines cluster;
  ParsedLine p;
  bool have_id = false;
  uint64_t expected = 0;
  uint64_t expected_line = 0;
  bool have_expected = false;
  uint64_t lines = 0;  // the current warp's instruction lines ("insts =" counts lines: both LDGSTS halves)
  auto check_count = [&] {
    WarpTrace* w = builder.current();
    if (w && have_expected && lines != expected)
      fail(file, expected_line,
           "warp " + std::to_string(w->warp_id) + " declares insts = " + std::to_string(expected) + " but has " +
               std::to_string(lines) + " instructions");
  };
  uint64_t line_no = text.first_line;
  std::string_view rest = text.text;
  for (; !rest.empty(); ++line_no) {
    const size_t nl = rest.find('\n');
    std::string_view line = trim(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.empty()) continue;
    std::string_view value;
    if (split_assignment(line, "thread block", value)) {
      if (have_id) fail(file, line_no, "second 'thread block =' line inside one #BEGIN_TB");
      if (!parse_block_id(value, out.id)) fail(file, line_no, "bad thread block index " + quoted_excerpt(value));
      check_in_grid(k, out.id, file, line_no);
      have_id = true;
    } else if (line.starts_with("cluster ")) {
      cluster.read(line, file, line_no, have_id && !builder.current());
    } else if (split_assignment(line, "warp", value)) {
      check_count();
      lines = 0;
      uint32_t w = 0;
      if (!parse_dec_u32(value, w)) fail(file, line_no, "bad warp id " + quoted_excerpt(value));
      builder.new_warp(w, line_no);
      have_expected = false;
    } else if (split_assignment(line, "insts", value)) {
      if (!builder.current()) fail(file, line_no, "'insts =' before any 'warp =' line");
      if (!parse_dec_u64(value, expected)) fail(file, line_no, "bad instruction count " + quoted_excerpt(value));
      have_expected = true;
      expected_line = line_no;
    } else if (line.front() == '#') {
      if (line.starts_with("#BEGIN_TB")) fail(file, line_no, "#BEGIN_TB inside a thread block (missing #END_TB)");
      continue;  // other comments are ignored
    } else {
      WarpTrace* w = builder.current();
      if (!w) fail(file, line_no, "instruction before any 'warp =' line");
      if (!have_id) fail(file, line_no, "instruction before the 'thread block =' line");
      parse_instruction_line(line, k, table, p, file, line_no);
      if (k.lines_prefixed() && (Dim3{p.block[0], p.block[1], p.block[2]} != out.id || p.warp != w->warp_id))
        fail(file, line_no, "line prefix names block (" + std::to_string(p.block[0]) + "," + std::to_string(p.block[1]) +
                                "," + std::to_string(p.block[2]) + ") warp " + std::to_string(p.warp) +
                                " inside block " + out.id.str() + " warp " + std::to_string(w->warp_id));
      builder.add(*w, p);
      ++lines;
    }
  }
  check_count();
  builder.flush();
  if (!have_id) fail(file, text.first_line, "thread block without a 'thread block =' line");
  cluster.finish(out, file, text.first_line);
}

}  // namespace lockstep
