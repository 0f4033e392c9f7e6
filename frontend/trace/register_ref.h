#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lockstep {

// A register operand as named in a trace: R12, UR4, P0, UP1.
enum class RegKind : uint8_t { kR = 0, kUR = 1, kP = 2, kUP = 3 };

struct RegRef {
  RegKind kind = RegKind::kR;
  uint16_t num = 0;

  uint32_t packed() const { return (uint32_t(kind) << 16) | num; }
  static std::optional<RegRef> unpack(uint32_t v) {
    if ((v >> 16) > uint32_t(RegKind::kUP)) return std::nullopt;
    return RegRef{RegKind(v >> 16), uint16_t(v & 0xffff)};
  }
  // R255 / UR63 are the zero registers; they carry no dependence.
  bool is_zero() const { return (kind == RegKind::kR && num == 255) || (kind == RegKind::kUR && num == 63); }
  std::string str() const;
  static std::optional<RegRef> parse(std::string_view token);
  bool operator==(const RegRef&) const = default;
};

}  // namespace lockstep
