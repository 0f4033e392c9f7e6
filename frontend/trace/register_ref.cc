#include "frontend/trace/register_ref.h"

#include <charconv>

namespace lockstep {

std::string RegRef::str() const {
  static constexpr const char* kPrefix[] = {"R", "UR", "P", "UP"};
  return kPrefix[uint8_t(kind)] + std::to_string(num);
}

std::optional<RegRef> RegRef::parse(std::string_view token) {
  RegRef reg;
  size_t digits = 0;
  if (token.starts_with("UR")) {
    reg.kind = RegKind::kUR, digits = 2;
  } else if (token.starts_with("UP")) {
    reg.kind = RegKind::kUP, digits = 2;
  } else if (token.starts_with("R")) {
    reg.kind = RegKind::kR, digits = 1;
  } else if (token.starts_with("P")) {
    reg.kind = RegKind::kP, digits = 1;
  } else {
    return std::nullopt;
  }
  const char* first = token.data() + digits;
  const char* last = token.data() + token.size();
  unsigned value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last || first == last || value > 0xffff) return std::nullopt;
  reg.num = uint16_t(value);
  return reg;
}

}  // namespace lockstep
