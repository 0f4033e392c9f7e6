#pragma once
// Small, strict number and token parsers for the text trace format.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace lockstep {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A piece of the input for an error message: quoted, cut to 100 characters
// with its full length when longer, control bytes shown as '?', so that one
// error stays one short line whatever the input.
inline std::string quoted_excerpt(std::string_view s) {
  constexpr size_t kShown = 100;
  std::string out = "'";
  for (char c : s.substr(0, kShown)) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
  out += "'";
  if (s.size() > kShown) out.insert(out.size() - 1, "...").append(" (" + std::to_string(s.size()) + " bytes)");
  return out;
}

// Hex with or without "0x"; the whole token must be digits.
inline bool parse_hex_u64(std::string_view s, uint64_t& out) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

inline bool parse_dec_u64(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
  return ec == std::errc() && p == s.data() + s.size();
}

inline bool parse_dec_u32(std::string_view s, uint32_t& out) {
  uint64_t v = 0;
  if (!parse_dec_u64(s, v) || v > UINT32_MAX) return false;
  out = uint32_t(v);
  return true;
}

// Signed decimal, or 0x-hex (taken as a 64-bit two's-complement pattern).
inline bool parse_int64(std::string_view s, int64_t& out) {
  if (s.starts_with("0x") || s.starts_with("0X")) {
    uint64_t u = 0;
    if (!parse_hex_u64(s, u)) return false;
    out = int64_t(u);
    return true;
  }
  if (s.starts_with('+')) s.remove_prefix(1);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
  return ec == std::errc() && p == s.data() + s.size();
}

// An id compared only for equality, as the tracer prints it: unsigned or
// negative decimal (kept as its 64-bit two's complement) or 0x-hex.
inline bool parse_id64(std::string_view s, uint64_t& out) {
  if (parse_dec_u64(s, out)) return true;
  int64_t v = 0;
  if (!parse_int64(s, v)) return false;
  out = uint64_t(v);
  return true;
}

// Splits a line on spaces and tabs.
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view line) : rest_(line) {}
  // Next token, or an empty view at the end of the line.
  std::string_view next() {
    size_t i = 0;
    while (i < rest_.size() && (rest_[i] == ' ' || rest_[i] == '\t')) ++i;
    size_t j = i;
    while (j < rest_.size() && rest_[j] != ' ' && rest_[j] != '\t') ++j;
    std::string_view tok = rest_.substr(i, j - i);
    rest_ = rest_.substr(j);
    return tok;
  }
  // The next token without consuming it.
  std::string_view peek() const { return Tokenizer(rest_).next(); }
  bool at_end() const {
    for (char c : rest_)
      if (c != ' ' && c != '\t') return false;
    return true;
  }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

}  // namespace lockstep
