#include "frontend/trace/kernel_completeness.h"

#include <algorithm>

#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

bool is_exit(const std::string& opcode) { return opcode.substr(0, opcode.find('.')) == "EXIT"; }

Dim3 block_of(const Dim3& grid, uint64_t linear) {
  const uint64_t plane = uint64_t(grid.x) * grid.y;
  return Dim3{uint32_t(linear % grid.x), uint32_t(linear % plane / grid.x), uint32_t(linear / plane)};
}

}  // namespace

KernelCompleteness::KernelCompleteness(const KernelInfo& kernel, std::string file)
    : grid_(kernel.grid), warps_per_block_(kernel.warps_per_block()), file_(std::move(file)) {}

void KernelCompleteness::add(const BlockTrace& block, const StaticTable& table) {
  blocks_.push_back(grid_.linear(block.id));
  if (block.warps.size() < warps_per_block_) note_short_block(block);
  for (const WarpTrace& w : block.warps) {
    if (has_exit(w, table)) continue;
    if (warps_without_exit_++ == 0)
      first_warp_without_exit_ = "block " + block.id.str() + " warp " + std::to_string(w.warp_id);
  }
}

bool KernelCompleteness::has_exit(const WarpTrace& warp, const StaticTable& table) {
  if (exit_by_static_.size() < table.size()) exit_by_static_.resize(table.size(), -1);
  for (auto it = warp.insts.rbegin(); it != warp.insts.rend(); ++it) {  // the EXIT is normally last
    int8_t& known = exit_by_static_[it->static_id];
    if (known < 0) known = is_exit(table.opcode_of(it->static_id)) ? 1 : 0;
    if (known) return true;
  }
  return false;
}

void KernelCompleteness::note_short_block(const BlockTrace& block) {
  if (short_blocks_++ > 0) return;
  // Warp ids are distinct and below warps_per_block (the parser checks): find the first absent.
  std::vector<bool> present(warps_per_block_, false);
  for (const WarpTrace& w : block.warps)
    if (w.warp_id < warps_per_block_) present[w.warp_id] = true;
  const auto missing = std::find(present.begin(), present.end(), false) - present.begin();
  first_short_block_ = block.id.str() + ": " + std::to_string(block.warps.size()) + " of " +
                       std::to_string(warps_per_block_) + " warps, warp " + std::to_string(missing) + " missing";
}

std::vector<std::string> KernelCompleteness::findings() {
  std::vector<std::string> out;
  std::sort(blocks_.begin(), blocks_.end());
  uint64_t repeated = 0, first_repeated = 0;
  for (size_t i = 1; i < blocks_.size(); ++i)
    if (blocks_[i] == blocks_[i - 1] && (i < 2 || blocks_[i] != blocks_[i - 2]) && repeated++ == 0)
      first_repeated = blocks_[i];
  blocks_.erase(std::unique(blocks_.begin(), blocks_.end()), blocks_.end());
  const uint64_t grid_blocks = grid_.volume();
  if (blocks_.size() < grid_blocks) {
    uint64_t first_missing = 0;
    while (first_missing < blocks_.size() && blocks_[first_missing] == first_missing) ++first_missing;
    out.push_back(file_ + ": " + std::to_string(grid_blocks - blocks_.size()) + " of " + std::to_string(grid_blocks) +
                  " thread blocks missing (the first " + block_of(grid_, first_missing).str() + ")");
  }
  if (repeated)
    out.push_back(file_ + ": " + std::to_string(repeated) + " thread block(s) appear more than once (the first " +
                  block_of(grid_, first_repeated).str() + ")");
  if (short_blocks_)
    out.push_back(file_ + ": " + std::to_string(short_blocks_) + " thread block(s) lack warps (the first " +
                  first_short_block_ + ")");
  if (warps_without_exit_)
    out.push_back(file_ + ": " + std::to_string(warps_without_exit_) + " warp(s) without EXIT (the first: " +
                  first_warp_without_exit_ + ")");
  return out;
}

std::vector<std::string> check_partial(std::vector<std::string> findings, PartialTraces policy,
                                       const WarningHandler& warn) {
  if (findings.empty()) return findings;
  if (policy == PartialTraces::kReject) {
    std::string all;
    for (const std::string& f : findings) all += (all.empty() ? "" : "; ") + f;
    throw TraceError(all + ": the trace is partial (--allow-partial reads it anyway)");
  }
  if (warn)
    for (const std::string& f : findings) warn(f + " (partial trace, read anyway)");
  return findings;
}

}  // namespace lockstep
