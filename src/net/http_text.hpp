// net/http_text.hpp — the two text helpers keel's HTTP readers share: a header name compared
// without regard to ASCII case, and a value with its surrounding blanks (and line ending) cut.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "core/text/text_util.hpp"

namespace keel::detail {

// Whether `text` equals `lower` (written in lowercase) when ASCII case is ignored.
inline bool equals_lowercase(std::string_view text, std::string_view lower) {
  return text.size() == lower.size() && starts_with_ascii_icase(text, lower);
}

// `s` without leading spaces and tabs, nor trailing spaces, tabs, CR and LF.
inline std::string_view trim_http_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace keel::detail
