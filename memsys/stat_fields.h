#pragma once
// A block's statistics as one list of counters. Each stats struct names its
// counters once, in a field list (stable name, member); summing shards,
// visiting counters for the statistics files and the per-instance breakdown
// all walk that list, so a new counter is one line in one place.
//
//   struct L2SliceStats {
//     uint64_t read_sectors = 0;
//     uint64_t read_hits = 0;
//     static constexpr auto fields() {
//       return std::to_array<StatField<L2SliceStats>>({
//           {"l2_read_sectors", &L2SliceStats::read_sectors},
//           {"l2_read_hits", &L2SliceStats::read_hits}});
//     }
//     L2SliceStats& operator+=(const L2SliceStats& o) { return add_stat_fields(*this, o); }
//   };
//
// Counters are integers only; rates are derived from merged sums.
#include <array>
#include <cstdint>

namespace lockstep {

template <typename Stats>
struct StatField {
  const char* name;         // stable name in the statistics files
  uint64_t Stats::*member;  // the counter
};

// Adds every listed counter of `from` into `into`; returns `into`.
template <typename Stats>
Stats& add_stat_fields(Stats& into, const Stats& from) {
  for (const StatField<Stats>& f : Stats::fields()) into.*f.member += from.*f.member;
  return into;
}

// Calls visit(name, value) for every listed counter, in list order.
template <typename Stats, typename Visit>
void for_each_stat_field(const Stats& stats, Visit&& visit) {
  for (const StatField<Stats>& f : Stats::fields()) visit(f.name, stats.*f.member);
}

}  // namespace lockstep
