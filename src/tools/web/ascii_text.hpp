// tools/web/ascii_text.hpp — ASCII case folding and whitespace trimming for protocol text (header
// names, media types, URL schemes, HTML attribute values), where non-ASCII bytes pass unchanged.
//
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace keel::detail {

// `s` with A-Z lowered; other bytes unchanged.
inline std::string ascii_lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

inline bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// `s` without leading and trailing ASCII whitespace.
inline std::string_view trim_ascii(std::string_view s) {
  while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace keel::detail
