#include "core/abstract/characterisation.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "core/occupancy.h"
#include "core/shared_memory_banks.h"
#include "core/sm.h"
#include "core/sm/operand_collector.h"

namespace lockstep {
namespace {

uint16_t clamp16(uint64_t v) { return uint16_t(std::clamp<uint64_t>(v, 1, UINT16_MAX)); }

}  // namespace

KernelCharacterisation characterise(const BasicBlocks& blocks, const KernelProgram& program, const SmSpec& sm,
                                    uint32_t memory_latency) {
  KernelCharacterisation out;
  const std::span<const uint32_t> ids = blocks.insts();
  if (ids.empty()) return out;
  SmSpec spec = sm;
  spec.perfect_memory_latency = memory_latency;

  // One warp: every block once, in PC order; each memory lane a contiguous,
  // conflict-free address (coalesced, one shared-memory wavefront).
  auto pass = [&](uint32_t x) {
    auto block = std::make_unique<BlockTrace>();
    block->id = Dim3{x, 0, 0};
    WarpTrace& w = block->warps.emplace_back();
    w.insts.reserve(ids.size());
    for (uint32_t s : ids) {
      const TimedInstruction& ti = program[s];
      if (ti.has_addresses) {
        LaneBuffer lanes;
        for (uint64_t lane = 0; lane < 32; ++lane) lanes[lane] = 0x10000000ull + lane * ti.access_bytes;
        w.push(s, 0xffffffffu, lanes);
      } else {
        w.push(s, 0xffffffffu);
      }
    }
    return block;
  };
  KernelLaunch launch;
  launch.program = &program;
  launch.warps_per_block = 1;
  launch.occupancy = compute_occupancy(spec, KernelShape{32, 32, 0});
  Sm reference(0, spec);
  std::vector<uint64_t> issue[2];
  issue[0].reserve(ids.size());
  issue[1].reserve(ids.size());
  reference.set_issue_observer([&](uint64_t cycle, uint32_t, const Dim3& b, uint32_t i) {
    if (i == issue[b.x].size()) issue[b.x].push_back(cycle);
  });
  uint64_t accepted[2] = {0, 0}, now = 0;
  for (uint32_t x = 0; x < 2; ++x) {
    accepted[x] = now;
    reference.accept(launch, pass(x), now);
    const uint64_t limit = now + 64 * (ids.size() + 1) * (uint64_t(spec.icache_miss_latency) + memory_latency + 64) + 1000000;
    while (reference.tick(now)) {
      if (++now > limit) throw std::runtime_error("pre-characterisation: the reference SM did not finish the kernel's blocks");
    }
    if (issue[x].size() != ids.size()) throw std::runtime_error("pre-characterisation: not every instruction issued");
  }
  out.sm_cycles = now;
  out.startup_cold = uint32_t(issue[0][0] - accepted[0]);
  out.startup_warm = uint32_t(issue[1][0] - accepted[1]);

  // Registers memory instructions write (scoreboard indices).
  std::vector<uint8_t> memory_dst(1 << 16, 0);
  for (uint32_t s : ids)
    if (program[s].kind == InstKind::kMemory)
      for (uint32_t d = 0; d < program[s].num_dsts; ++d) memory_dst[program[s].dsts[d]] = 1;

  const OperandCollector collectors(spec);
  out.insts.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const TimedInstruction& ti = program[ids[i]];
    CharacterisedInstruction& c = out.insts[i];
    c.static_id = ids[i];
    const bool last = i + 1 == ids.size();
    c.cold_delay = last ? 1 : clamp16(issue[0][i + 1] - issue[0][i]);
    c.delay = last ? 1 : clamp16(issue[1][i + 1] - issue[1][i]);
    c.kind = ti.kind;
    c.memory = ti.kind == InstKind::kMemory;
    c.unit = c.memory ? kNoUnit : ti.unit;
    c.num_dsts = ti.num_dsts;
    c.bank_conflicts = uint8_t(std::min<uint32_t>(collectors.bank_conflict_cycles(ti), UINT8_MAX));
    c.async_copy = ti.space == MemSpace::kGlobalToShared;
    for (uint32_t k = 0; k < ti.num_srcs; ++k) c.reads_memory_result |= memory_dst[ti.srcs[k]] != 0;
    for (uint32_t k = 0; k < ti.num_dsts; ++k) c.reads_memory_result |= memory_dst[ti.dsts[k]] != 0;
    if (c.memory) {
      uint32_t waves = 1;
      if (ti.space == MemSpace::kShared && ti.has_addresses) {
        uint64_t lanes[32];
        for (uint64_t lane = 0; lane < 32; ++lane) lanes[lane] = 0x10000000ull + lane * ti.access_bytes;
        waves = std::max(1u, shared_memory_wavefronts(lanes, ti.access_bytes, spec.shared_banks, spec.shared_bank_bytes));
      }
      c.result_latency = ti.space == MemSpace::kShared ? spec.shared_latency + waves - 1 : memory_latency;
    } else if (ti.num_dsts > 0) {
      const bool control = ti.kind == InstKind::kBranch || ti.kind == InstKind::kExit || ti.kind == InstKind::kBarrier;
      c.result_latency = ti.unit == kNoUnit ? (control ? spec.branch_latency : 1) : spec.units[ti.unit].latency;
    }
  }
  out.cold_extra.reserve(blocks.blocks().size());
  for (const BasicBlock& b : blocks.blocks()) {
    int64_t extra = 0;
    for (uint32_t i = b.begin; i < b.begin + b.size; ++i) extra += int64_t(out.insts[i].cold_delay) - out.insts[i].delay;
    out.cold_extra.push_back(uint32_t(std::max<int64_t>(extra, 0)));
  }
  return out;
}

}  // namespace lockstep
