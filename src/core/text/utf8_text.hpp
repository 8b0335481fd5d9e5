// tools/text_util.hpp — small text helpers shared by the built-in tools and the executor.
//
// Tool output is sent to a model inside JSON, so it must be valid UTF-8 and bounded in size.
// These helpers cut text without splitting a UTF-8 sequence, repair invalid bytes, detect binary
// content and format timestamps.
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <cstddef>
#include <ctime>
#include <string>
#include <string_view>

namespace keel::detail {

// How many leading bytes of a file are inspected to decide whether it is binary.
inline constexpr size_t kBinarySniffBytes = 8 * 1024;

// True when `prefix` (the first bytes of a file) contains a NUL byte.
bool looks_binary(std::string_view prefix);

// Length of the longest prefix of `text` that is at most `max_bytes` long and does not end in the
// middle of a UTF-8 sequence.
size_t utf8_cut_length(std::string_view text, size_t max_bytes);

// Length of `text` without a UTF-8 sequence cut off at its end (what is left after cutting a longer
// text at a byte limit).
size_t utf8_complete_prefix(std::string_view text);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD, so it can be embedded in JSON.
std::string sanitize_utf8(std::string_view text);

// "2024-05-01T12:03:04Z" for a POSIX time.
std::string iso8601_utc(std::time_t t);

// "a, b, c".
template <class Range>
std::string join(const Range& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += sep;
    out += item;
    first = false;
  }
  return out;
}

}  // namespace keel::detail
