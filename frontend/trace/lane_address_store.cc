#include "frontend/trace/lane_address_store.h"

#include <limits>

#include "frontend/trace/trace_error.h"

namespace lockstep {
namespace {

bool fits32(int64_t v) { return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(); }

}  // namespace

uint32_t LaneAddressStore::words_of(Form form, uint32_t lanes) {
  switch (form) {
    case kNearStride:
      return lanes == 0 ? 0 : lanes == 1 ? 1 : 2;
    case kNearLanes:
      return lanes;
    case kFarStride:
      return lanes <= 1 ? 2 : 3;
    default:
      return 2 * lanes;
  }
}

[[gnu::always_inline]] inline uint32_t LaneAddressStore::next_index() const {
  const size_t at = words_.size();
  if (at > kIndexMask - 2 * kMaxLanes) throw TraceError("more than 2^30 address words in one warp");
  return uint32_t(at);
}

uint32_t LaneAddressStore::put_stride(uint32_t index, uint64_t first, uint64_t stride, uint32_t lanes) {
  if (!has_base_) {
    base_ = first;
    has_base_ = true;
  }
  const int64_t d0 = int64_t(first - base_);
  const bool near = fits32(d0);
  if (near) {
    words_.push_back(uint32_t(int32_t(d0)));
  } else {
    words_.push_back(uint32_t(first));
    words_.push_back(uint32_t(first >> 32));
  }
  if (lanes > 1) words_.push_back(uint32_t(int32_t(int64_t(stride))));
  return index | uint32_t(near ? kNearStride : kFarStride) << kFormShift;
}

uint32_t LaneAddressStore::append_strided(uint64_t first, uint64_t stride, uint32_t lanes) {
  if (lanes > 1 && !fits32(int64_t(stride))) {
    Lanes a;
    for (uint32_t k = 0; k < lanes && k < kMaxLanes; ++k) a[k] = first + k * stride;
    return append(a.data(), lanes);
  }
  const uint32_t index = next_index();
  if (lanes == 0) return index | uint32_t(kNearStride) << kFormShift;
  return put_stride(index, first, stride, lanes);
}

uint32_t LaneAddressStore::append(const uint64_t* a, uint32_t lanes) {
  const uint32_t index = next_index();
  if (lanes == 0) return index | uint32_t(kNearStride) << kFormShift;
  const int64_t stride = lanes > 1 ? int64_t(a[1] - a[0]) : 0;
  bool uniform = fits32(stride);
  for (uint32_t k = 2; k < lanes && uniform; ++k) uniform = int64_t(a[k] - a[k - 1]) == stride;
  if (uniform) return put_stride(index, a[0], uint64_t(stride), lanes);
  return put_lanes(index, a, lanes);
}

uint32_t LaneAddressStore::append_lanes(const uint64_t* a, uint32_t lanes) {
  return lanes < 2 ? append(a, lanes) : put_lanes(next_index(), a, lanes);
}

uint32_t LaneAddressStore::put_lanes(uint32_t index, const uint64_t* a, uint32_t lanes) {
  if (!has_base_) {
    base_ = a[0];
    has_base_ = true;
  }
  bool near = true;
  for (uint32_t k = 0; k < lanes && near; ++k) near = fits32(int64_t(a[k] - base_));
  // The record's words written in place (one size check, not one per word).
  const size_t at = words_.size();
  words_.resize(at + (near ? lanes : 2 * lanes));
  uint32_t* w = words_.data() + at;
  if (near) {
    for (uint32_t k = 0; k < lanes; ++k) w[k] = uint32_t(int32_t(int64_t(a[k] - base_)));
    return index | uint32_t(kNearLanes) << kFormShift;
  }
  put_full(w, a, lanes);
  return index | uint32_t(kFull) << kFormShift;
}

bool LaneAddressStore::holds(uint32_t ref, uint32_t lanes) const {
  if (lanes > kMaxLanes) return false;
  const uint64_t end = uint64_t(ref & kIndexMask) + words_of(Form(ref >> kFormShift), lanes);
  return end <= words_.size() && (lanes == 0 || has_base_);
}

}  // namespace lockstep
