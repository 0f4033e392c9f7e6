// lockstep info TRACE [--opcodes N] [--full-opcodes]
#include <boost/program_options.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "frontend/cli/command_line.h"
#include "frontend/cli/commands.h"
#include "frontend/container/container_reader.h"
#include "frontend/convert/open_trace.h"

namespace po = boost::program_options;

namespace lockstep::cli {
namespace {

std::string base_mnemonic(const std::string& opcode) { return opcode.substr(0, opcode.find('.')); }

void print_histogram(const std::vector<std::pair<std::string, uint64_t>>& counts, uint64_t total, size_t limit,
                     bool full) {
  std::map<std::string, uint64_t> merged;
  for (const auto& [op, n] : counts)
    if (n) merged[full ? op : base_mnemonic(op)] += n;
  std::vector<std::pair<std::string, uint64_t>> sorted(merged.begin(), merged.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  const size_t shown = limit ? std::min(limit, sorted.size()) : sorted.size();
  for (size_t i = 0; i < shown; ++i)
    std::printf("      %-24s %12llu  %5.1f%%\n", sorted[i].first.c_str(), (unsigned long long)sorted[i].second,
                total ? 100.0 * double(sorted[i].second) / double(total) : 0.0);
  if (shown < sorted.size()) std::printf("      ... %zu more opcodes\n", sorted.size() - shown);
}

}  // namespace

int cmd_info(const Args& args) {
  std::string input;
  size_t limit = 12;
  bool full = false, allow_partial = false, check = false;
  po::options_description opts("usage: lockstep info TRACE [options]\nTRACE: a .lst file or an Accel-Sim text trace\noptions");
  opts.add_options()("help,h", "show this help")("opcodes", whole_number("opcodes", &limit, 0, SIZE_MAX),
                                                   "opcodes listed per kernel (0 = all)")(
      "full-opcodes", po::bool_switch(&full), "histogram by full opcode (LDG.E.64) instead of mnemonic (LDG)")(
      "allow-partial", po::bool_switch(&allow_partial), kAllowPartialHelp)(
      "check", po::bool_switch(&check),
      "also read back every frame of a .lst (checksums, decoding, agreement with the index) without simulating");
  if (!parse_command_line(args, opts, "input", input)) return 0;
  if (input.empty()) throw po::error("missing trace");

  auto trace = open_trace(input, print_warning, partial_policy(allow_partial));
  const TraceManifest& m = trace->manifest();
  std::printf("trace %s: %zu kernels\n", input.c_str(), m.kernels.size());
  KernelSummary total;
  uint64_t memcpy_bytes = 0, memcpys = 0;
  for (const TraceCommand& c : m.commands) {
    if (c.kind == TraceCommand::Kind::kMemcpy) {
      ++memcpys;
      memcpy_bytes += c.memcpy.bytes;
      std::printf("  MemcpyHtoD 0x%016llx %llu bytes\n", (unsigned long long)c.memcpy.address,
                  (unsigned long long)c.memcpy.bytes);
      continue;
    }
    const KernelInfo& k = m.kernels[c.kernel_index];
    const KernelSummary s = trace->summarize(c.kernel_index);
    std::string name = k.name.size() > 100 ? k.name.substr(0, 97) + "..." : k.name;
    std::printf("  kernel %u %s\n", k.kernel_id, name.c_str());
    const std::string* stream = k.header_field("cuda stream id");
    std::printf("    sm_%u, tracer %u%s, stream %s, grid %s, block %s, %u regs, %u B shmem\n", k.binary_version,
                k.tracer_version, k.raw_tracer_output ? " (raw)" : "", stream ? stream->c_str() : "0", k.grid.str().c_str(),
                k.block.str().c_str(), k.nregs, k.shmem_bytes);
    std::printf("    %llu blocks, %llu warps, %llu warp instructions, %llu thread instructions, memory %.1f%%\n",
                (unsigned long long)s.blocks, (unsigned long long)s.warps, (unsigned long long)s.warp_insts,
                (unsigned long long)s.thread_insts, s.warp_insts ? 100.0 * double(s.mem_insts) / double(s.warp_insts) : 0.0);
    print_histogram(s.opcode_counts, s.warp_insts, limit, full);
    total.blocks += s.blocks;
    total.warps += s.warps;
    total.warp_insts += s.warp_insts;
    total.mem_insts += s.mem_insts;
    total.thread_insts += s.thread_insts;
    total.opcode_counts.insert(total.opcode_counts.end(), s.opcode_counts.begin(), s.opcode_counts.end());
  }
  std::printf("total: %zu kernels, %llu blocks, %llu warps, %llu warp instructions, memory %.1f%%, %llu memcpys (%llu bytes)\n",
              m.kernels.size(), (unsigned long long)total.blocks, (unsigned long long)total.warps,
              (unsigned long long)total.warp_insts,
              total.warp_insts ? 100.0 * double(total.mem_insts) / double(total.warp_insts) : 0.0,
              (unsigned long long)memcpys, (unsigned long long)memcpy_bytes);
  print_histogram(total.opcode_counts, total.warp_insts, limit, full);
  if (check) {
    if (is_container_file(input)) {
      const ContainerReader reader(input);
      const uint64_t chunks = reader.check_every_frame();
      std::printf("check: %llu chunks and %zu kernel tables read back, every checksum matches (.lst format version %u)\n",
                  (unsigned long long)chunks, m.kernels.size(), reader.format_version());
    } else {
      std::printf("check: every block of the text trace parsed\n");
    }
  }
  return 0;
}

}  // namespace lockstep::cli
