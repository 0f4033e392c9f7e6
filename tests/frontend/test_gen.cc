// `lockstep gen`: determinism, sizing, and the structure of what it writes,
// checked with a small scanner of its own (independent of the text parser).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/gen/workload_generator.h"
#include "tests/test_paths.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t end = std::min(s.find(sep, pos), s.size());
    out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::string_view w : split(s, ' '))
    if (!w.empty()) out.push_back(w);
  return out;
}

bool parse_u64(std::string_view s, uint64_t& v, int base = 10) {
  if (base == 16 && s.starts_with("0x")) s.remove_prefix(2);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}
bool parse_i64(std::string_view s, int64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}
bool is_reg(std::string_view s) {
  uint64_t n = 0;
  return s.size() > 1 && s[0] == 'R' && parse_u64(s.substr(1), n) && n <= 255;
}
std::string_view base_opcode(std::string_view op) { return op.substr(0, op.find('.')); }
bool is_memory_opcode(std::string_view op) {
  static const std::set<std::string_view> kMem = {"LDG", "STG", "LDS", "STS", "ATOMG", "RED"};
  return kMem.count(base_opcode(op)) > 0;
}
bool is_shared_opcode(std::string_view op) { return base_opcode(op) == "LDS" || base_opcode(op) == "STS"; }

// What a scan of a generated trace directory found.
struct Scan {
  std::string error;  // first problem, empty if none
  uint32_t kernels = 0;
  uint32_t memcpys = 0;
  uint64_t blocks = 0;
  uint64_t warp_insts = 0;
  uint64_t bytes = 0;
  std::map<std::string, uint64_t> opcodes;
  std::set<std::string> kernel_names;
  uint64_t partial_masks = 0;      // 0 < popcount < 32
  uint64_t partial_branches = 0;   // BRA with a partial mask
  uint64_t backward_branches = 0;  // PC goes down (a loop)
  std::set<uint32_t> binary_versions;
};

const char* kHeaderKeys[] = {"kernel name",     "kernel id",           "grid dim",      "block dim",
                             "shmem",           "nregs",               "binary version", "cuda stream id",
                             "shmem base_addr", "local mem base_addr", "nvbit version", "accelsim tracer version",
                             "enable lineinfo"};

// Checks one instruction line; returns "" or what is wrong.
std::string check_instruction(std::string_view line, uint64_t shmem, Scan& scan, uint64_t& last_pc) {
  const std::vector<std::string_view> t = words(line);
  size_t i = 0;
  const auto need = [&](size_t n) { return i + n <= t.size(); };
  uint64_t pc = 0, mask = 0, n = 0;
  if (!need(3) || !parse_u64(t[0], pc, 16) || t[0].size() < 4 || pc % 0x10) return "bad PC";
  if (t[1].size() != 8 || !parse_u64(t[1], mask, 16)) return "bad mask";
  i = 2;
  if (!parse_u64(t[i++], n, 10) || !need(n + 1)) return "bad dest count";
  for (uint64_t k = 0; k < n; ++k)
    if (!is_reg(t[i++])) return "bad dest register";
  const std::string op(t[i++]);
  if (!need(1) || !parse_u64(t[i++], n, 10) || !need(n + 1)) return "bad source count";
  for (uint64_t k = 0; k < n; ++k)
    if (!is_reg(t[i++])) return "bad source register";
  uint64_t width = 0;
  if (!parse_u64(t[i++], width, 10)) return "bad mem_width";
  if ((width > 0) != is_memory_opcode(op)) return "mem_width " + std::to_string(width) + " on " + op;
  const uint32_t active = uint32_t(std::popcount(mask));
  if (width > 0) {
    uint64_t mode = 0, base = 0;
    if (!need(2) || !parse_u64(t[i++], mode, 10) || !parse_u64(t[i++], base, 16)) return "bad address head";
    std::vector<uint64_t> addrs;
    if (mode == 1) {
      int64_t stride = 0;
      if (!need(1) || !parse_i64(t[i++], stride)) return "bad stride";
      if (active == 0) {
        if (base != 0 || stride != 0) return "addresses on an inactive memory instruction";
      } else {
        const uint64_t run = mask >> std::countr_zero(mask);
        if (active < 2 || (run & (run + 1)) != 0) return "base+stride on a non-contiguous mask";
        for (uint32_t k = 0; k < active; ++k) addrs.push_back(base + uint64_t(int64_t(k) * stride));
      }
    } else if (mode == 2) {
      if (active == 0 || !need(active - 1)) return "address count does not match the active lanes";
      addrs.push_back(base);
      for (uint32_t k = 1; k < active; ++k) {
        int64_t d = 0;
        if (!parse_i64(t[i++], d)) return "bad address delta";
        addrs.push_back(addrs.back() + uint64_t(d));
      }
    } else {
      return "unexpected address mode";
    }
    for (uint64_t a : addrs) {
      if (is_shared_opcode(op) ? a >= shmem : (a < 0x00007f0000000000ull || a >= 0x0000800000000000ull))
        return "address out of its window on " + op;
    }
  }
  int64_t imm = 0;
  if (!need(1) || !parse_i64(t[i++], imm)) return "missing immediate";
  if (i != t.size()) return "trailing tokens (address count does not match the active lanes?)";
  ++scan.opcodes[op];
  if (active > 0 && active < 32) ++scan.partial_masks;
  if (op == "BRA" && active > 0 && active < 32) ++scan.partial_branches;
  if (pc < last_pc) ++scan.backward_branches;
  last_pc = pc;
  return "";
}

void scan_kernel(const fs::path& path, Scan& scan) {
  const std::string text = file_bytes(path);
  scan.bytes += text.size();
  const std::vector<std::string_view> lines = split(text, '\n');
  const auto fail = [&](size_t line, const std::string& what) {
    if (scan.error.empty()) scan.error = path.filename().string() + ":" + std::to_string(line + 1) + ": " + what;
  };
  // Header: the tracer's keys, in its order.
  size_t li = 0;
  std::map<std::string, std::string> header;
  for (const char* key : kHeaderKeys) {
    const std::string prefix = std::string("-") + key + " = ";
    if (li >= lines.size() || !lines[li].starts_with(prefix)) return fail(li, std::string("expected -") + key);
    header[key] = std::string(lines[li].substr(prefix.size()));
    ++li;
  }
  scan.kernel_names.insert(header["kernel name"]);
  scan.binary_versions.insert(uint32_t(std::stoul(header["binary version"])));
  if (header["accelsim tracer version"] != "5" || header["nvbit version"] != "1.7") return fail(li, "versions");
  if (!header["shmem base_addr"].starts_with("0x00007f")) return fail(li, "shmem base_addr");
  const uint64_t shmem = std::stoull(header["shmem"]);
  unsigned long gx = 0, gy = 0, gz = 0;
  if (std::sscanf(header["grid dim"].c_str(), "(%lu,%lu,%lu)", &gx, &gy, &gz) != 3) return fail(0, "grid dim");
  bool format_seen = false;
  bool in_block = false;
  uint64_t blocks = 0, expect_insts = 0, seen_insts = 0, last_pc = 0;
  bool in_warp = false;
  const auto end_warp = [&](size_t line) {
    if (in_warp && seen_insts != expect_insts)
      fail(line, "warp declares insts = " + std::to_string(expect_insts) + " but has " + std::to_string(seen_insts));
    in_warp = false;
  };
  for (; li < lines.size(); ++li) {
    const std::string_view l = lines[li];
    if (l.empty()) continue;
    if (l.starts_with("#traces format = ")) {
      format_seen = true;
    } else if (l == "#BEGIN_TB") {
      if (in_block) return fail(li, "nested #BEGIN_TB");
      in_block = true;
      ++blocks;
    } else if (l == "#END_TB") {
      if (!in_block) return fail(li, "#END_TB without #BEGIN_TB");
      end_warp(li);
      in_block = false;
    } else if (l.starts_with("thread block = ")) {
      if (!in_block) return fail(li, "thread block outside a block");
    } else if (l.starts_with("warp = ")) {
      end_warp(li);
      if (!in_block) return fail(li, "warp outside a block");
    } else if (l.starts_with("insts = ")) {
      if (!parse_u64(l.substr(8), expect_insts)) return fail(li, "bad insts");
      in_warp = true;
      seen_insts = 0;
      last_pc = 0;
    } else {
      if (!in_warp) return fail(li, "instruction outside a warp");
      ++seen_insts;
      ++scan.warp_insts;
      const std::string why = check_instruction(l, shmem, scan, last_pc);
      if (!why.empty()) return fail(li, why + ": " + std::string(l));
    }
  }
  if (in_block) return fail(li, "missing #END_TB");
  if (!format_seen) return fail(0, "no #traces format line");
  if (blocks != gx * gy * gz) return fail(0, "block count differs from the grid");
  scan.blocks += blocks;
}

Scan scan_trace(const fs::path& dir) {
  Scan scan;
  const std::string list = file_bytes(dir / "kernelslist.g");
  scan.bytes += list.size();
  if (list.empty() || list.back() != '\n') {
    scan.error = "kernelslist.g empty or unterminated";
    return scan;
  }
  std::set<std::string> listed;
  for (std::string_view l : split(std::string_view(list).substr(0, list.size() - 1), '\n')) {
    if (l.starts_with("MemcpyHtoD,")) {
      const auto f = split(l, ',');
      uint64_t addr = 0, bytes = 0;
      if (f.size() != 3 || f[1].size() != 18 || !parse_u64(f[1], addr, 16) || !parse_u64(f[2], bytes) || !bytes) {
        scan.error = "bad memcpy line: " + std::string(l);
        return scan;
      }
      ++scan.memcpys;
      continue;
    }
    const std::string name(l);
    if (name != "kernel-" + std::to_string(scan.kernels + 1) + ".traceg" || !fs::is_regular_file(dir / name)) {
      scan.error = "kernelslist names " + name + ", expected the next existing kernel file";
      return scan;
    }
    listed.insert(name);
    ++scan.kernels;
    scan_kernel(dir / name, scan);
    if (!scan.error.empty()) return scan;
  }
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != "kernelslist.g" && !listed.count(e.path().filename().string()))
      scan.error = "unlisted file " + e.path().filename().string();
  return scan;
}

GenSummary gen(const fs::path& dir, const std::string& workload, uint64_t size, uint64_t seed = 1,
               uint32_t arch = 70, uint32_t sms = 80) {
  GenOptions o;
  o.workload = workload;
  o.size = size;
  o.seed = seed;
  o.arch = arch;
  o.sms = sms;
  return generate_trace(o, dir);
}

std::map<std::string, std::string> dir_bytes(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()] = file_bytes(e.path());
  return files;
}

uint64_t count_with_prefix(const Scan& s, std::string_view prefix) {
  uint64_t n = 0;
  for (const auto& [op, c] : s.opcodes)
    if (std::string_view(op).starts_with(prefix)) n += c;
  return n;
}

TEST(GenOptions, ParsesSizes) {
  EXPECT_EQ(parse_size("200000"), 200000u);
  EXPECT_EQ(parse_size("200K"), 200000u);
  EXPECT_EQ(parse_size("5m"), 5000000u);
  EXPECT_EQ(parse_size("2G"), 2000000000u);
  EXPECT_EQ(parse_size("1.5M"), 1500000u);
  EXPECT_EQ(parse_size("30G"), 30000000000u);
  for (const char* bad : {"", "0", "0K", "-5", "abc", "12Q", "K", "1.", "1e6", "99999999999999999999", "20000G"})
    EXPECT_THROW(parse_size(bad), std::runtime_error) << bad;
}

TEST(GenOptions, ParsesArch) {
  EXPECT_EQ(parse_arch("sm70"), 70u);
  EXPECT_EQ(parse_arch("sm_80"), 80u);
  EXPECT_EQ(parse_arch("80"), 80u);
  EXPECT_THROW(parse_arch("sm75"), std::runtime_error);
}

TEST(GenOptions, ListsTheWorkloads) {
  const std::vector<std::string> names = workload_names();
  for (const char* w : {"vecadd", "stencil2d", "gemm", "graph", "reduce"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), w), names.end()) << w;
    EXPECT_FALSE(workload_summary(w).empty());
  }
}

TEST(GenOptions, RefusesBadOptionsWithoutWritingAnything) {
  test::ScratchDir scratch("gen-bad");
  const fs::path out = scratch / "out";
  try {
    gen(out, "nosuch", 1000);
    ADD_FAILURE() << "no error for an unknown workload";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("nosuch"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("vecadd"), std::string::npos);  // says what is known
  }
  EXPECT_THROW(gen(out, "vecadd", 0), std::runtime_error);
  EXPECT_THROW(gen(out, "vecadd", 1000, 1, 75), std::runtime_error);
  EXPECT_THROW(gen(out, "vecadd", 1000, 1, 70, 0), std::runtime_error);
  EXPECT_TRUE(fs::is_empty(scratch.path()));
}

TEST(GenDeterminism, SameOptionsGiveIdenticalBytes) {
  for (const std::string& w : workload_names()) {
    SCOPED_TRACE(w);
    test::ScratchDir scratch("gen-det");
    gen(scratch / "a", w, 20000, 7, 80);
    gen(scratch / "b", w, 20000, 7, 80);
    const auto a = dir_bytes(scratch / "a");
    EXPECT_GE(a.size(), 2u);
    EXPECT_TRUE(a == dir_bytes(scratch / "b"));
  }
}

TEST(GenDeterminism, SeedChangesTheGraph) {
  test::ScratchDir scratch("gen-seed");
  gen(scratch / "a", "graph", 50000, 1);
  gen(scratch / "b", "graph", 50000, 2);
  const auto a = dir_bytes(scratch / "a"), b = dir_bytes(scratch / "b");
  // Not only the addresses move: the traversal itself (masks, trip counts) differs.
  auto masks = [](const std::map<std::string, std::string>& files) {
    std::string s;
    for (const auto& [name, text] : files)
      for (std::string_view l : split(text, '\n'))
        if (l.size() > 14 && l[4] == ' ' && l[13] == ' ') s.append(l.substr(0, 13)).push_back('\n');
    return s;
  };
  EXPECT_NE(masks(a), masks(b));
}

TEST(GenSize, RoughlyHonoured) {
  for (const std::string& w : workload_names()) {
    for (uint64_t size : {uint64_t(10'000), uint64_t(100'000), test::workload_size(1'000'000)}) {
      SCOPED_TRACE(w + " " + std::to_string(size));
      test::ScratchDir scratch("gen-size");
      const GenSummary s = gen(scratch / "t", w, size, 3);
      EXPECT_GE(double(s.warp_insts), double(size) / 1.5);
      EXPECT_LE(double(s.warp_insts), double(size) * 1.5);
      if (size <= 100'000) {  // the summary is what was written
        const Scan scan = scan_trace(scratch / "t");
        EXPECT_EQ(scan.error, "");
        EXPECT_EQ(scan.warp_insts, s.warp_insts);
        EXPECT_EQ(scan.blocks, s.blocks);
        EXPECT_EQ(scan.kernels, s.kernels);
        EXPECT_EQ(scan.bytes, s.bytes);
      }
    }
  }
}

TEST(GenSize, TinyAndMultiKernelSizesWork) {
  for (const std::string& w : workload_names()) {
    SCOPED_TRACE(w);
    test::ScratchDir scratch("gen-tiny");
    const GenSummary s = gen(scratch / "t", w, 1000, 1, 80, 4);
    EXPECT_GT(s.warp_insts, 0u);
    EXPECT_LE(s.warp_insts, 4000u);
    EXPECT_EQ(scan_trace(scratch / "t").error, "");
  }
  // A small GPU makes the large-size plans (relaunches, sweeps) kick in early.
  test::ScratchDir scratch("gen-multi");
  const GenSummary s = gen(scratch / "t", "stencil2d", 3'000'000, 1, 70, 8);
  EXPECT_GT(s.kernels, 1u);
}

TEST(GenStructure, EveryWorkloadWritesAValidTraceOnBothArchs) {
  for (uint32_t arch : {70u, 80u}) {
    for (const std::string& w : workload_names()) {
      SCOPED_TRACE(w + " sm" + std::to_string(arch));
      test::ScratchDir scratch("gen-valid");
      gen(scratch / "t", w, 60000, 5, arch, 8);  // a small GPU: grid-stride loops iterate
      const Scan s = scan_trace(scratch / "t");
      ASSERT_EQ(s.error, "");
      EXPECT_GE(s.kernels, 1u);
      EXPECT_GE(s.memcpys, 1u);
      EXPECT_EQ(s.binary_versions, std::set<uint32_t>{arch});
      EXPECT_GT(s.opcodes.count("EXIT"), 0u);
      EXPECT_GT(s.opcodes.count("S2R"), 0u);
      EXPECT_GT(count_with_prefix(s, "LDG"), 0u);
      EXPECT_GT(s.opcodes.count("BRA"), 0u);
      if (w != "stencil2d") {
        EXPECT_GT(s.backward_branches, 0u);  // loops jump back
      }
      // Generation-specific spelling: Volta's global accesses carry .SYS, Ampere's do not.
      uint64_t sys = 0, global = 0;
      for (const auto& [op, n] : s.opcodes) {
        if (base_opcode(op) != "LDG" && base_opcode(op) != "STG") continue;
        global += n;
        if (std::string_view(op).ends_with(".SYS")) sys += n;
      }
      EXPECT_GT(global, 0u);
      EXPECT_EQ(sys, arch == 70 ? global : 0u);
      if (arch == 70) {
        EXPECT_EQ(s.opcodes.count("ULDC.64"), 0u);
      }
    }
  }
}

TEST(GenStructure, WorkloadsHaveTheirCharacteristicInstructions) {
  test::ScratchDir scratch("gen-ops");
  std::map<std::string, Scan> scans;
  for (const std::string& w : workload_names()) {
    gen(scratch / w, w, 100000, 1, 80);
    scans[w] = scan_trace(scratch / w);
    ASSERT_EQ(scans[w].error, "") << w;
  }
  Scan& vecadd = scans["vecadd"];
  EXPECT_GT(vecadd.opcodes["FADD"], 0u);
  EXPECT_GT(vecadd.opcodes["STG.E"], 0u);
  EXPECT_EQ(count_with_prefix(vecadd, "LDS") + count_with_prefix(vecadd, "BAR"), 0u);

  Scan& stencil = scans["stencil2d"];
  EXPECT_GT(stencil.opcodes["MUFU.RCP"], 0u);
  EXPECT_GT(stencil.partial_masks, 0u);  // boundary lanes

  Scan& gemm = scans["gemm"];
  EXPECT_GT(gemm.opcodes["BAR.SYNC"], 0u);
  EXPECT_GT(gemm.opcodes["LDS.128"], 0u);
  EXPECT_GT(gemm.opcodes["STS"] + gemm.opcodes["STS.128"], 0u);
  EXPECT_GT(gemm.opcodes["LDG.E.128"], 0u);
  EXPECT_GT(gemm.opcodes["FFMA"], 4 * gemm.opcodes["LDS.128"]);  // compute bound inner loop
  EXPECT_GT(gemm.opcodes["STG.E.128"], 0u);

  Scan& reduce = scans["reduce"];
  EXPECT_GT(reduce.opcodes["BAR.SYNC"], 0u);
  EXPECT_GT(count_with_prefix(reduce, "ATOMG") + count_with_prefix(reduce, "RED"), 0u);
  EXPECT_GT(reduce.partial_branches, 0u);  // the tree's shrinking masks
  EXPECT_GT(reduce.opcodes["MUFU.RCP"], 0u);

  Scan& graph = scans["graph"];
  EXPECT_GT(graph.kernels, 2u);  // a pair of kernels per BFS level
  EXPECT_EQ(graph.kernel_names.size(), 2u);
  EXPECT_GT(graph.partial_branches, 0u);
  EXPECT_GT(graph.partial_masks, graph.warp_insts / 20);
  EXPECT_GT(graph.opcodes["LDG.E.U8"], 0u);
}

TEST(GenOutput, ReplacesOnlyTraceDirectories) {
  test::ScratchDir scratch("gen-out");
  const fs::path out = scratch / "t";
  gen(out, "vecadd", 5000);
  const std::string first = file_bytes(out / "kernel-1.traceg");
  gen(out, "reduce", 5000);  // a previous trace is replaced
  EXPECT_NE(file_bytes(out / "kernel-1.traceg"), first);
  EXPECT_EQ(scan_trace(out).error, "");

  std::ofstream(out / "notes.txt") << "keep me";
  EXPECT_THROW(gen(out, "vecadd", 5000), std::runtime_error);
  EXPECT_EQ(file_bytes(out / "notes.txt"), "keep me");
  // Nothing but the output directory is left behind (no temporary directory).
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(scratch.path())) entries.push_back(e.path().filename().string());
  EXPECT_EQ(entries, std::vector<std::string>{"t"});

  gen(scratch / "slash/", "vecadd", 2000);  // a trailing separator names the directory
  EXPECT_TRUE(fs::is_regular_file(scratch / "slash" / "kernelslist.g"));
}

TEST(GenCli, GeneratesAndReportsErrorsOnOneLine) {
  test::ScratchDir scratch("gen-cli");
  const std::string bin = test::lockstep_binary().string();
  const std::string log = (scratch / "log").string();
  const std::string ok = bin + " gen gemm -o " + (scratch / "t").string() + " --size 20K --arch sm80 --seed 3 > " + log;
  ASSERT_EQ(std::system(ok.c_str()), 0);
  EXPECT_NE(file_bytes(log).find("warp instructions"), std::string::npos);
  EXPECT_EQ(scan_trace(scratch / "t").error, "");

  const std::string bad = bin + " gen nosuch -o " + (scratch / "u").string() + " 2> " + log;
  const int rc = std::system(bad.c_str());
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
  const std::string err = file_bytes(log);
  EXPECT_NE(err.find("unknown workload 'nosuch'"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(scratch / "u"));

  const std::string bad_size = bin + " gen vecadd -o " + (scratch / "u").string() + " --size 12Q 2> " + log;
  const int rc2 = std::system(bad_size.c_str());
  EXPECT_TRUE(WIFEXITED(rc2) && WEXITSTATUS(rc2) == 1);
  EXPECT_NE(file_bytes(log).find("bad size '12Q'"), std::string::npos);
}

}  // namespace
}  // namespace lockstep
