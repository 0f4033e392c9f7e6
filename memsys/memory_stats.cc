#include "memsys/memory_stats.h"

#include <stdexcept>

namespace lockstep {

MemoryStats& MemoryStats::operator+=(const MemoryStats& o) {
  icnt += o.icnt;
  l2 += o.l2;
  dram += o.dram;
  return *this;
}

void MemoryStats::for_each(const std::function<void(const std::string&, uint64_t)>& visit) const {
  const auto named = [&](const char* name, uint64_t value) { visit(name, value); };
  for_each_stat_field(icnt, named);
  for_each_stat_field(l2, named);
  for_each_stat_field(dram, named);
}

MemoryStats MemoryInstanceStats::total() const {
  MemoryStats sum;
  for (const auto& i : icnt) sum.icnt += i.stats;
  for (const auto& s : l2) sum.l2 += s.stats;
  for (const auto& c : dram) sum.dram += c.stats;
  return sum;
}

MemoryInstanceStats& MemoryInstanceStats::operator+=(const MemoryInstanceStats& o) {
  const auto add = [](auto& into, const auto& from) {
    if (into.empty()) {
      into = from;
      return;
    }
    if (from.empty()) return;
    if (into.size() != from.size()) throw std::logic_error("MemoryInstanceStats: adding different instance lists");
    for (size_t i = 0; i < into.size(); ++i) {
      if (into[i].name != from[i].name) throw std::logic_error("MemoryInstanceStats: adding different instances");
      into[i].stats += from[i].stats;
    }
  };
  add(icnt, o.icnt);
  add(l2, o.l2);
  add(dram, o.dram);
  return *this;
}

void MemoryInstanceStats::for_each(
    const std::function<void(const std::string&, const std::string&, uint64_t)>& visit) const {
  const auto visit_all = [&](const auto& instances) {
    for (const auto& i : instances)
      for_each_stat_field(i.stats, [&](const char* counter, uint64_t value) { visit(i.name, counter, value); });
  };
  visit_all(icnt);
  visit_all(l2);
  visit_all(dram);
}

}  // namespace lockstep
