#include "configs/spec/gpu_spec.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/isa/instruction_class.h"
#include "configs/spec/spec_check.h"

namespace lockstep {
namespace {

using spec::at_least;
using spec::fail;
using spec::iequals;

void clock(std::string_view key, double mhz) {
  if (!std::isfinite(mhz) || mhz <= 0 || mhz > 100000) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", mhz);
    fail(key, buf, "must be a frequency in MHz, > 0 and <= 100000");
  }
}

bool known_kind(std::string_view name) {
  for (int k = 0; k <= int(InstKind::kNop); ++k)
    if (iequals(name, inst_kind_name(InstKind(k)))) return true;
  return false;
}

// "OPC:UNIT[:KIND]": an opcode (with modifiers), a declared unit class or MEM, an optional kind.
void check_isa_line(const std::string& line, const SmSpec& sm) {
  std::vector<std::string_view> fields;
  std::string_view rest = line;
  for (;;) {
    const size_t colon = rest.find(':');
    fields.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (fields.size() < 2 || fields.size() > 3 || fields[0].empty() || fields[1].empty())
    fail("isa.extra", line, "expected OPC:UNIT or OPC:UNIT:KIND");
  for (char c : fields[0])
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_'))
      fail("isa.extra", line, "opcode '" + std::string(fields[0]) + "' has a character other than A-Z 0-9 . _");
  bool unit_known = iequals(fields[1], kMemoryPipelineName);
  for (const UnitSpec& u : sm.units) unit_known = unit_known || iequals(fields[1], u.name);
  if (!unit_known)
    fail("isa.extra", line,
         "unit '" + std::string(fields[1]) + "' is not in sm.units (nor " + kMemoryPipelineName + ")");
  if (fields.size() == 3 && !known_kind(fields[2])) {
    std::string kinds;
    for (int k = 0; k <= int(InstKind::kNop); ++k) {
      if (k) kinds += '|';
      kinds += inst_kind_name(InstKind(k));
    }
    fail("isa.extra", line, "kind '" + std::string(fields[2]) + "' is not one of " + kinds);
  }
}

}  // namespace

void GpuSpec::validate() const {
  if (name.empty()) fail("gpu.name", "", "must not be empty");
  spec::within("gpu.sms", sms, 1, 1024);  // the largest GPUs have under 200
  at_least("gpu.sms_per_cluster", sms_per_cluster, 1);
  if (sms % sms_per_cluster != 0)
    fail("gpu.sms_per_cluster", std::to_string(sms_per_cluster), "does not divide gpu.sms = " + std::to_string(sms));
  spec::at_most("gpu.kernel_launch_latency", kernel_launch_latency, spec::kMaxLatency);
  // Kernel-level costs: a few microseconds at most on real GPUs; each must also
  // pass before the watchdog would call the wait a deadlock.
  const std::pair<const char*, uint32_t> launch_costs[] = {
      {"launch.kernel_start_cycles", launch.kernel_start_cycles},
      {"launch.block_interval_cycles", launch.block_interval_cycles},
      {"launch.sm_block_interval_cycles", launch.sm_block_interval_cycles},
      {"launch.kernel_drain_cycles", launch.kernel_drain_cycles}};
  for (const auto& [key, cycles] : launch_costs) {
    spec::at_most(key, cycles, spec::kMaxLaunchCost);
    if (watchdog_cycles && cycles >= watchdog_cycles)
      fail(key, cycles, "must be less than gpu.watchdog_cycles = " + std::to_string(watchdog_cycles));
  }
  clock("clock.core_mhz", clocks.core_mhz);
  clock("clock.icnt_mhz", clocks.icnt_mhz);
  clock("clock.l2_mhz", clocks.l2_mhz);
  clock("clock.dram_mhz", clocks.dram_mhz);

  sm.validate();
  memory.validate();

  // The L1D lives in the SM's unified storage: it must fit next to every carve-out.
  const L1dSpec& l1d = memory.l1d;
  const uint64_t set_bytes = uint64_t(l1d.sets) * l1d.line_bytes;
  for (uint32_t carveout : sm.shared_carveouts_kb) {
    const uint64_t left = uint64_t(sm.unified_l1_shared_kb - carveout) * 1024;
    if (l1d.adaptive) {
      if (left % set_bytes != 0)
        fail("l1d.sets", std::to_string(l1d.sets),
             "the " + std::to_string(left / 1024) + " KB left by carve-out " + std::to_string(carveout) +
                 " KB is not a whole number of ways of l1d.sets x l1d.line_bytes");
    } else if (l1d.base_bytes() > left) {
      fail("l1d.ways", std::to_string(l1d.ways),
           "a fixed L1D of " + std::to_string(l1d.base_bytes() / 1024) + " KB does not fit in the " +
               std::to_string(left / 1024) + " KB that sm.unified_l1_shared_kb leaves beside carve-out " +
               std::to_string(carveout) + " KB");
    }
  }
  if (l1d.adaptive && l1d.base_bytes() > uint64_t(sm.unified_l1_shared_kb) * 1024)
    fail("l1d.ways", std::to_string(l1d.ways),
         "the base L1D of " + std::to_string(l1d.base_bytes() / 1024) + " KB is larger than sm.unified_l1_shared_kb");

  for (const std::string& line : isa_extra) check_isa_line(line, sm);
}

}  // namespace lockstep
