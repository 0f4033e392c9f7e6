#include "parallel/longest_first.h"

#include <algorithm>
#include <numeric>

namespace lockstep {

std::vector<uint32_t> assign_longest_first(const std::vector<double>& cost, const std::vector<uint32_t>& items,
                                           std::vector<double>& load, uint32_t first, uint32_t n) {
  std::vector<uint32_t> order(items.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return cost[items[a]] > cost[items[b]]; });
  std::vector<uint32_t> owner(items.size(), first);
  for (uint32_t k : order) {
    uint32_t best = first;
    for (uint32_t t = first + 1; t < first + n; ++t)
      if (load[t] < load[best]) best = t;
    load[best] += cost[items[k]];
    owner[k] = best;
  }
  return owner;
}

}  // namespace lockstep
