#pragma once
// The lane addresses of one warp's memory instructions, stored compactly in
// 32-bit words: one record per instruction, in one of four forms chosen when it
// is stored (the 2-bit form and the word index make its reference):
//   near stride  a[k] = base + d + k * s    words: d, s (s only with 2+ lanes)
//   near lanes   a[k] = base + d[k]         words: d[0..lanes)
//   far stride   a[k] = a0 + k * s          words: a0 low, a0 high, s (s only with 2+ lanes)
//   full         a[k]                       words: low, high per lane
// where base is the warp's first stored address and d, s are signed 32-bit.
// Most warps' lanes are strided (2 words instead of 8 bytes a lane) and a
// gather's addresses lie within 2 GiB of the warp's first (4 bytes a lane);
// reading a record back yields exactly the addresses stored.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace lockstep {

class LaneAddressStore {
 public:
  static constexpr uint32_t kMaxLanes = 32;
  using Lanes = std::array<uint64_t, kMaxLanes>;  // a caller's scratch for one instruction's addresses

  void clear() {
    words_.clear();
    has_base_ = false;
  }
  // Stores a[0..lanes) (lanes <= kMaxLanes); returns the record's reference.
  // Throws TraceError beyond 2^30 words (4 GiB of addresses in one warp).
  uint32_t append(const uint64_t* a, uint32_t lanes);
  // append() of addresses that are not all one 32-bit stride apart (or of
  // fewer than 2), without checking it: a record in a lane form (which
  // append() makes only of such addresses) moved by a constant.
  uint32_t append_lanes(const uint64_t* a, uint32_t lanes);
  // append() of a[k] = first + k * stride, without the addresses written out
  // (the same record append() makes of them).
  uint32_t append_strided(uint64_t first, uint64_t stride, uint32_t lanes);
  // Whether record `ref` of `lanes` addresses is in a stride form; if so, its
  // a[k] = *first + k * *stride (*stride = 0 for one lane).
  bool strided(uint32_t ref, uint32_t lanes, uint64_t* first, uint64_t* stride) const {
    const uint32_t* w = words_.data() + (ref & kIndexMask);
    switch (ref >> kFormShift) {
      case kNearStride:
        if (lanes == 0) return false;
        *first = base_ + uint64_t(int64_t(int32_t(w[0])));
        *stride = lanes > 1 ? uint64_t(int64_t(int32_t(w[1]))) : 0;
        return true;
      case kFarStride:
        *first = uint64_t(w[0]) | uint64_t(w[1]) << 32;
        *stride = lanes > 1 ? uint64_t(int64_t(int32_t(w[2]))) : 0;
        return true;
      default:
        return false;
    }
  }
  // Writes the `lanes` addresses of record `ref` (as append was given them) to out.
  void read(uint32_t ref, uint32_t lanes, uint64_t* out) const {
    const uint32_t* w = words_.data() + (ref & kIndexMask);
    switch (ref >> kFormShift) {
      case kNearStride: {
        if (lanes == 0) return;
        const uint64_t a0 = base_ + uint64_t(int64_t(int32_t(w[0])));
        const uint64_t s = lanes > 1 ? uint64_t(int64_t(int32_t(w[1]))) : 0;
        for (uint32_t k = 0; k < lanes; ++k) out[k] = a0 + k * s;
        return;
      }
      case kNearLanes:
        for (uint32_t k = 0; k < lanes; ++k) out[k] = base_ + uint64_t(int64_t(int32_t(w[k])));
        return;
      case kFarStride: {
        const uint64_t a0 = uint64_t(w[0]) | uint64_t(w[1]) << 32;
        const uint64_t s = lanes > 1 ? uint64_t(int64_t(int32_t(w[2]))) : 0;
        for (uint32_t k = 0; k < lanes; ++k) out[k] = a0 + k * s;
        return;
      }
      default:
        get_full(w, lanes, out);
        return;
    }
  }
  // Whether `ref` names a record of `lanes` addresses inside the store (for
  // checks on traces built by other code; decoding builds only valid ones).
  bool holds(uint32_t ref, uint32_t lanes) const;
  size_t bytes() const { return words_.capacity() * sizeof(uint32_t); }
  size_t words() const { return words_.size(); }
  // The word storage, for a caller that manages its capacity (chunk decoding reuses it).
  std::vector<uint32_t>& storage() { return words_; }

 private:
  enum Form : uint32_t { kNearStride = 0, kNearLanes = 1, kFarStride = 2, kFull = 3 };
  static constexpr uint32_t kFormShift = 30;
  static constexpr uint32_t kIndexMask = (uint32_t(1) << kFormShift) - 1;
  static uint32_t words_of(Form form, uint32_t lanes);
  // The full form's words: each address's low word, then its high word (on a
  // little-endian host, the addresses' own bytes, copied as they are).
  static void put_full(uint32_t* w, const uint64_t* a, uint32_t lanes) {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(w, a, sizeof(uint64_t) * lanes);
    } else {
      for (uint32_t k = 0; k < lanes; ++k) {
        w[2 * k] = uint32_t(a[k]);
        w[2 * k + 1] = uint32_t(a[k] >> 32);
      }
    }
  }
  static void get_full(const uint32_t* w, uint32_t lanes, uint64_t* out) {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(out, w, sizeof(uint64_t) * lanes);
    } else {
      for (uint32_t k = 0; k < lanes; ++k) out[k] = uint64_t(w[2 * k]) | uint64_t(w[2 * k + 1]) << 32;
    }
  }
  // The index of the next record; throws when the store is full.
  uint32_t next_index() const;
  // A stride record (lanes >= 1, a 32-bit stride when lanes >= 2) at `index`.
  uint32_t put_stride(uint32_t index, uint64_t first, uint64_t stride, uint32_t lanes);
  // A lane record (near lanes or full; lanes >= 1) at `index`.
  uint32_t put_lanes(uint32_t index, const uint64_t* a, uint32_t lanes);

  std::vector<uint32_t> words_;
  uint64_t base_ = 0;
  bool has_base_ = false;
};

}  // namespace lockstep
