#include "memsys/functional/functional_gpu.h"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <utility>

namespace lockstep {

// `threads` workers, also more than the cores (oneTBB's default limit is the cores).
struct FunctionalGpu::Arena {
  tbb::global_control workers;
  tbb::task_arena arena;
  explicit Arena(uint32_t threads)
      : workers(tbb::global_control::max_allowed_parallelism, threads), arena(int(threads)) {}
};

FunctionalGpu::FunctionalGpu(const GpuSpec& spec, uint32_t threads, bool per_unit_stats, uint64_t steps_per_chunk)
    : threads_(std::max(threads, 1u)),
      per_unit_(per_unit_stats),
      steps_per_chunk_(std::max<uint64_t>(steps_per_chunk, 1)),
      l2_(spec.memory) {
  for (uint32_t s = 0; s < spec.sms; ++s) sms_.push_back(std::make_unique<FunctionalSm>(spec, l2_.map()));
  if (threads_ > 1) arena_ = std::make_unique<Arena>(threads_);
  heaps_.resize(l2_.slices());
  sort_.resize(l2_.slices());
  for (auto& h : heaps_) h.reserve(spec.sms);
}

FunctionalGpu::~FunctionalGpu() = default;

template <typename Fn>
void FunctionalGpu::for_each(uint32_t n, Fn&& fn) {
  if (!arena_) {
    for (uint32_t i = 0; i < n; ++i) fn(i);
    return;
  }
  arena_->arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, n, 1), [&](const tbb::blocked_range<uint32_t>& r) {
      for (uint32_t i = r.begin(); i != r.end(); ++i) fn(i);
    });
  });
}

void FunctionalGpu::merge_into_slice(uint32_t s) {
  std::vector<Cursor>& heap = heaps_[s];
  heap.clear();
  for (uint32_t sm = 0; sm < sms_.size(); ++sm) {
    const std::span<const L2Request> r = sms_[sm]->requests(s);
    if (!r.empty()) heap.push_back(Cursor{r.data(), r.data() + r.size(), sm});
  }
  // A min-heap on (step, SM id): the earliest step first, the lower SM id first among equal steps.
  const auto later = [](const Cursor& a, const Cursor& b) {
    return a.at->step != b.at->step ? a.at->step > b.at->step : a.sm > b.sm;
  };
  FunctionalL2Slice& slice = l2_.slice(s);
  if (heap.size() == 1) {
    for (const L2Request* r = heap[0].at; r != heap[0].end; ++r) slice.access(*r);
    return;
  }
  // Steps of a chunk mostly span a few hundred: a stable counting sort by
  // step, the SMs taken in id order, gives the same order as the heap.
  uint64_t lo = UINT64_MAX, hi = 0;
  size_t total = 0;
  for (const Cursor& c : heap) {
    lo = std::min<uint64_t>(lo, c.at->step);
    hi = std::max<uint64_t>(hi, (c.end - 1)->step);
    total += size_t(c.end - c.at);
  }
  if (hi - lo <= std::max<uint64_t>(4 * steps_per_chunk_, total)) {
    SortScratch& sort = sort_[s];
    sort.per_step.assign(size_t(hi - lo) + 1, 0);
    for (const Cursor& c : heap)
      for (const L2Request* r = c.at; r != c.end; ++r) ++sort.per_step[size_t(r->step - lo)];
    uint32_t start = 0;
    for (uint32_t& n : sort.per_step) start += std::exchange(n, start);
    sort.order.resize(total);
    for (const Cursor& c : heap)
      for (const L2Request* r = c.at; r != c.end; ++r) sort.order[sort.per_step[size_t(r->step - lo)]++] = r;
    for (const L2Request* r : sort.order) slice.access(*r);
    return;
  }
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Cursor& c = heap.back();
    // Every request of this SM up to the next SM's step goes in one run.
    const uint64_t limit = heap.size() > 1 ? heap.front().at->step : UINT64_MAX;
    const uint32_t limit_sm = heap.size() > 1 ? heap.front().sm : 0;
    do {
      slice.access(*c.at);
      ++c.at;
    } while (c.at != c.end && (c.at->step < limit || (c.at->step == limit && c.sm < limit_sm)));
    if (c.at == c.end) {
      heap.pop_back();
    } else {
      std::push_heap(heap.begin(), heap.end(), later);
    }
  }
}

FunctionalKernelResult FunctionalGpu::run_kernel(KernelProgram& program, const StaticTable& table,
                                                 BlockCursor& blocks, const Occupancy& occupancy) {
  const uint32_t nsms = uint32_t(sms_.size());
  for (auto& sm : sms_) {
    sm->start_kernel(program, occupancy, blocks.segments());
    sm->take_spent_blocks(spare_blocks_);
  }
  const uint64_t wave = uint64_t(nsms) * occupancy.blocks_per_sm;
  bool exhausted = false, waiting = true;
  uint64_t step_limit = steps_per_chunk_, given = 0;
  const auto any_starved = [&] {
    return std::any_of(sms_.begin(), sms_.end(), [](const auto& sm) { return sm->starved(); });
  };
  for (;;) {
    // Blocks to their SMs, in trace order: a full wave first; then, once
    // every SM is starved or done, until every starved SM has its next block.
    while (waiting && !exhausted && (given < wave || any_starved())) {
      ++given;
      std::unique_ptr<BlockTrace> block;
      if (spare_blocks_.empty()) {
        block = std::make_unique<BlockTrace>();
      } else {
        block = std::move(spare_blocks_.back());
        spare_blocks_.pop_back();
      }
      if (!blocks.next(*block)) {
        spare_blocks_.push_back(std::move(block));
        exhausted = true;
        break;
      }
      program.extend(table);
      sms_[next_sm_]->give(std::move(block));
      next_sm_ = next_sm_ + 1 == nsms ? 0 : next_sm_ + 1;
    }
    // Every SM runs to the chunk's limit. One that waited for a block may be
    // far behind it: the SMs go at most a chunk's steps past the
    // slowest at a time, each part's requests merged before the next one's.
    // The slices take them in the order of one merge of the whole chunk (by
    // step, then SM id: a part holds the steps up to its limit, and an SM
    // runs on only if it stopped at that limit), and the requests held stay
    // one chunk's.
    uint64_t slowest = step_limit;
    for (auto& sm : sms_)
      if (!sm->idle()) slowest = std::min(slowest, sm->step());
    running_.assign(nsms, 1);
    for (uint64_t limit = std::min(step_limit, slowest + steps_per_chunk_);;
         limit = std::min(step_limit, limit + steps_per_chunk_)) {
      for_each(nsms, [&](uint32_t s) {
        if (running_[s]) sms_[s]->run(!exhausted, limit);
      });
      for_each(l2_.slices(), [&](uint32_t s) { merge_into_slice(s); });
      // Every kReleaseEvery merges the request vectors start again from empty:
      // what they hold is then the largest batch of the last few, not of the run.
      const bool release = ++merges_ % kReleaseEvery == 0;
      bool more = false;
      for (uint32_t s = 0; s < nsms; ++s) {
        sms_[s]->clear_requests(release);
        running_[s] = running_[s] && !sms_[s]->idle() && !sms_[s]->starved() && sms_[s]->step() >= limit;
        more |= running_[s] != 0;
      }
      if (limit >= step_limit || !more) break;
    }
    bool idle = true;  // every SM done
    waiting = true;    // every SM done or starved
    for (auto& sm : sms_) {
      sm->take_spent_blocks(spare_blocks_);
      idle &= sm->idle();
      waiting &= sm->idle() || sm->starved();
    }
    if (exhausted && idle) break;
    if (!waiting) step_limit += steps_per_chunk_;  // an SM stopped at the limit: the next chunk of steps
  }
  FunctionalKernelResult r;
  if (per_unit_) r.sm_stats.resize(nsms);
  for (uint32_t s = 0; s < nsms; ++s) {
    const SmStats taken = sms_[s]->take_stats();
    r.stats += taken;
    if (per_unit_) r.sm_stats[s] = taken;
  }
  if (per_unit_) {
    r.memory_units = l2_.take_instance_stats();
    r.memory = r.memory_units.total();
  } else {
    r.memory = l2_.take_stats();
  }
  return r;
}

}  // namespace lockstep
