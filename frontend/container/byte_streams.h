#pragma once
// The byte streams the container's columns are made of (proto/trace.proto):
// LEB128 varints (zigzag-mapped where signed), single bytes and 4-byte
// little-endian words, appended by ByteSink and read back by ByteSource with
// bounds checks. A fault while reading throws StreamDecodeError, which the
// codec turns into a TraceError naming the frame and the position.
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "frontend/trace/dim3.h"

namespace lockstep {

struct StreamDecodeError {
  std::string what;
};
[[noreturn]] inline void stream_fail(std::string what) { throw StreamDecodeError{std::move(what)}; }

class ByteSink {
 public:
  void u(uint64_t v) {
    while (v >= 0x80) {
      s_.push_back(char(v | 0x80));
      v >>= 7;
    }
    s_.push_back(char(v));
  }
  void z(int64_t v) { u((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
  void byte(uint8_t v) { s_.push_back(char(v)); }
  void le32(uint32_t v) {
    const char b[4] = {char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
    s_.append(b, 4);
  }
  const std::string& bytes() const { return s_; }
  std::string take() { return std::move(s_); }
  void shrink_to_fit() { s_.shrink_to_fit(); }
  void reserve(size_t bytes) { s_.reserve(bytes); }

 private:
  std::string s_;
};

// One named stream (the name goes into error messages), read front to back.
class ByteSource {
 public:
  ByteSource(std::string_view s, const char* name)
      : p_(reinterpret_cast<const uint8_t*>(s.data())), end_(p_ + s.size()), name_(name) {}
  uint64_t u() {
    if (p_ < end_ && *p_ < 0x80) [[likely]]
      return *p_++;
    return u_slow();
  }
  int64_t z() {
    const uint64_t v = u();
    return int64_t(v >> 1) ^ -int64_t(v & 1);
  }
  // A signed value that must fit 32 bits (a difference of two uint32).
  [[gnu::always_inline]] uint32_t z32() {
    const int64_t v = z();
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      stream_fail(std::string(name_) + " stream: value " + std::to_string(v) + " out of range");
    return uint32_t(int32_t(v));
  }
  // An unsigned value that must fit 32 bits.
  uint32_t u32() {
    const uint64_t v = u();
    if (v > std::numeric_limits<uint32_t>::max())
      stream_fail(std::string(name_) + " stream: value " + std::to_string(v) + " out of range");
    return uint32_t(v);
  }
  uint8_t byte() {
    if (p_ == end_) [[unlikely]]
      ends();
    return *p_++;
  }
  uint32_t le32() {
    if (end_ - p_ < 4) [[unlikely]]
      ends();
    const uint32_t v = uint32_t(p_[0]) | uint32_t(p_[1]) << 8 | uint32_t(p_[2]) << 16 | uint32_t(p_[3]) << 24;
    p_ += 4;
    return v;
  }
  size_t left() const { return size_t(end_ - p_); }
  const char* name() const { return name_; }

 private:
  [[noreturn, gnu::noinline]] void ends() const { stream_fail(std::string(name_) + " stream ends early"); }
  [[gnu::noinline]] uint64_t u_slow() {
    if (end_ - p_ >= 8) {
      // Up to eight bytes at once: find the last byte (high bit clear), then
      // gather the 7-bit groups without a branch per byte.
      uint64_t x;
      std::memcpy(&x, p_, 8);
      if constexpr (std::endian::native == std::endian::little) {
        const uint64_t stops = ~x & 0x8080808080808080ULL;
        if (stops != 0) {
          const int bits = std::countr_zero(stops) + 1;  // through the last byte's high bit
          p_ += bits >> 3;
          if (bits < 64) x &= (uint64_t(1) << bits) - 1;
          // Pairs of groups into 14 bits, pairs of those into 28, then 56.
          x = (x & 0x007f007f007f007fULL) | ((x & 0x7f007f007f007f00ULL) >> 1);
          x = (x & 0x00003fff00003fffULL) | ((x & 0x3fff00003fff0000ULL) >> 2);
          return (x & 0x000000000fffffffULL) | ((x & 0x0fffffff00000000ULL) >> 4);
        }
      }
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) ends();
      const uint8_t b = *p_++;
      v |= uint64_t(b & 0x7f) << shift;
      if (b < 0x80) {
        if (shift == 63 && b > 1) break;
        return v;
      }
    }
    stream_fail(std::string(name_) + " stream: bad varint");
  }

  const uint8_t* p_;
  const uint8_t* end_;
  const char* name_;
};

// A thread block id as the container stores it, in the block streams and
// indexes alike: each coordinate minus the previous block's (modulo 2^32,
// zigzag varints); `prev` becomes `id`.
inline void put_block_id(ByteSink& out, Dim3 id, Dim3& prev) {
  out.z(int32_t(id.x - prev.x));
  out.z(int32_t(id.y - prev.y));
  out.z(int32_t(id.z - prev.z));
  prev = id;
}
inline Dim3 get_block_id(ByteSource& in, Dim3& prev) {
  Dim3 id;
  id.x = prev.x + in.z32();
  id.y = prev.y + in.z32();
  id.z = prev.z + in.z32();
  prev = id;
  return id;
}

}  // namespace lockstep
