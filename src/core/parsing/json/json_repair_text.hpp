// Byte-level helpers of the JSON repair pass (json_repair_pass.cpp) and its messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/text/utf8_text.hpp"  // utf8_sequence_length, utf8_char_start

namespace keel::detail::json_repair {

inline bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
inline bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}
inline bool is_hex(unsigned char c) {
  return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
inline bool is_ident_start(unsigned char c) {
  return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_' || c == '$';
}
inline bool is_ident_char(unsigned char c) {
  return is_ident_start(c) || is_digit(c) || c == '-';
}
inline bool is_number_char(unsigned char c) {
  return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// True when `s` is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
inline bool valid_number(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  auto digits = [&] {
    const size_t from = i;
    while (i < n && is_digit(s[i])) ++i;
    return i > from;
  };
  if (i < n && s[i] == '-') ++i;
  if (i < n && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

// 'd' for a smart double quote (U+201C/U+201D) at s[i], 's' for a smart single one (U+2018/U+2019).
inline char smart_quote(std::string_view s, size_t i) {
  if (i + 2 >= s.size() || s[i] != '\xE2' || s[i + 1] != '\x80') return 0;
  const unsigned char c = static_cast<unsigned char>(s[i + 2]);
  if (c == 0x9C || c == 0x9D) return 'd';
  if (c == 0x98 || c == 0x99) return 's';
  return 0;
}

// At most `max` bytes of `s` for a message, cut at a UTF-8 boundary, "..." when shortened.
inline std::string clip(std::string_view s, size_t max = 40) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, utf8_char_start(s, max))) + "...";
}

}  // namespace keel::detail::json_repair
