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

}  // namespace

void parse_instruction_line(std::string_view line, const KernelInfo& k, StaticTable& table, ParsedLine& out,
                            const std::string& file, uint64_t line_no) {
  LineFields f(line, file, line_no);
  if (k.lines_prefixed()) {
    for (uint32_t& b : out.block) b = f.dec32("thread block index");
    out.warp = f.dec32("warp id");
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
  st.mem_width = f.dec32("memory width");
  out.num_addrs = 0;
  if (st.mem_width > 0) {
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
  WarpTrace* current() { return current_; }

 private:
  const KernelInfo& k_;
  const std::string& file_;
  StaticTable& table_;
  BlockTrace& out_;
  WarpTrace* current_ = nullptr;
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

void parse_raw_block(const BlockText& text, const KernelInfo& k, const std::string& file, StaticTable& table,
                     BlockTrace& out) {
  BlockBuilder builder(k, file, table, out);
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
      have_id = true;
    }
    builder.append(builder.warp(p.warp, line_no), p);
  }
  std::sort(out.warps.begin(), out.warps.end(),
            [](const WarpTrace& a, const WarpTrace& b) { return a.warp_id < b.warp_id; });
}

}  // namespace

void parse_block_text(const BlockText& text, const KernelInfo& k, const std::string& file, StaticTable& table,
                      BlockTrace& out) {
  if (text.numbered) {
    parse_raw_block(text, k, file, table, out);
    return;
  }
  BlockBuilder builder(k, file, table, out);
  ParsedLine p;
  bool have_id = false;
  uint64_t expected = 0;
  uint64_t expected_line = 0;
  bool have_expected = false;
  auto check_count = [&](uint64_t line_no) {
    WarpTrace* w = builder.current();
    if (w && have_expected && w->insts.size() != expected)
      fail(file, expected_line,
           "warp " + std::to_string(w->warp_id) + " declares insts = " + std::to_string(expected) + " but has " +
               std::to_string(w->insts.size()) + " instructions");
    (void)line_no;
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
    } else if (split_assignment(line, "warp", value)) {
      check_count(line_no);
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
      builder.append(*w, p);
    }
  }
  check_count(line_no);
  if (!have_id) fail(file, text.first_line, "thread block without a 'thread block =' line");
}

}  // namespace lockstep
