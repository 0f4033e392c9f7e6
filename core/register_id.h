#pragma once
// Registers flattened into one index space for the scoreboard:
// R0..R255 -> 0..255, UR0..UR63 -> 256..319, P0..P7 -> 320..327, UP0..UP7 -> 328..335.
#include <cstdint>

#include "frontend/trace/register_ref.h"

namespace lockstep {

inline constexpr uint16_t kNumScoreboardRegs = 336;
inline constexpr uint16_t kNoRegister = 0xffff;

// kNoRegister for zero registers (R255, UR63) and out-of-range numbers: they carry no dependence.
inline uint16_t scoreboard_index(const RegRef& r) {
  if (r.is_zero()) return kNoRegister;
  switch (r.kind) {
    case RegKind::kR: return r.num < 256 ? r.num : kNoRegister;
    case RegKind::kUR: return r.num < 64 ? uint16_t(256 + r.num) : kNoRegister;
    case RegKind::kP: return r.num < 8 ? uint16_t(320 + r.num) : kNoRegister;
    case RegKind::kUP: return r.num < 8 ? uint16_t(328 + r.num) : kNoRegister;
  }
  return kNoRegister;
}

}  // namespace lockstep
