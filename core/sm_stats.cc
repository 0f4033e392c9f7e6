#include "core/sm_stats.h"

#include <algorithm>

namespace lockstep {

const char* stall_reason_name(StallReason r) {
  switch (r) {
    case StallReason::kIdle: return "idle";
    case StallReason::kFetch: return "fetch";
    case StallReason::kScoreboard: return "scoreboard";
    case StallReason::kUnitBusy: return "unit_busy";
    case StallReason::kBarrier: return "barrier";
    case StallReason::kMemory: return "memory";
    case StallReason::kCount: break;
  }
  return "?";
}

SmStats& SmStats::operator+=(const SmStats& o) {
  add_stat_fields(*this, o);
  l1 += o.l1;
  if (unit_issues.size() < o.unit_issues.size()) unit_issues.resize(o.unit_issues.size());
  for (size_t i = 0; i < o.unit_issues.size(); ++i) unit_issues[i] += o.unit_issues[i];
  for (size_t i = 0; i < size_t(StallReason::kCount); ++i) stalls[i] += o.stalls[i];
  return *this;
}

void SmStats::for_each(const std::vector<std::string>& unit_names,
                       const std::function<void(const std::string&, uint64_t)>& visit) const {
  // The statistics files print the L1's lookup hits after the global load
  // sectors and its other counters after the local sectors.
  constexpr auto l1_fields = L1Stats::fields();
  size_t next_l1 = 0;
  auto visit_l1_until = [&](size_t end) {
    for (; next_l1 < end; ++next_l1) visit(l1_fields[next_l1].name, l1.*l1_fields[next_l1].member);
  };
  for (const StatField<SmStats>& f : fields()) {
    visit(f.name, this->*f.member);
    if (f.member == &SmStats::global_ld_sectors) visit_l1_until(1);
    if (f.member == &SmStats::local_sectors) visit_l1_until(l1_fields.size());
  }
  for (size_t i = 0; i < unit_issues.size(); ++i)
    visit("lockstep__issued." + (i < unit_names.size() ? unit_names[i] : std::to_string(i)), unit_issues[i]);
  for (size_t i = 0; i < size_t(StallReason::kCount); ++i)
    visit(std::string("lockstep__stall.") + stall_reason_name(StallReason(i)), stalls[i]);
}

}  // namespace lockstep
