// core/text/utf8_text.hpp — keel's one UTF-8 module: deciding what is well-formed, decoding and
// encoding code points, counting characters, cutting text at a character boundary and repairing
// invalid bytes. Every layer uses these rather than its own byte tests (core is the lowest layer).
//
// "Well-formed" is Unicode's definition (Table 3-7): no overlong forms, no surrogates
// (U+D800-U+DFFF), nothing above U+10FFFF, no truncated sequence. The cutting and counting helpers
// look only at continuation bytes (10xxxxxx), so they are cheap and never fail on invalid input;
// each says what it does with bytes that are not UTF-8.
//
// Also here for its callers: binary sniffing, a UTC timestamp and join (tool output helpers).
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

namespace keel::detail {

// U+FFFD REPLACEMENT CHARACTER, what invalid bytes decode to.
inline constexpr char32_t kReplacementChar = 0xFFFD;

// Whether `c` continues a UTF-8 sequence (10xxxxxx) rather than starting one.
inline bool utf8_is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}
inline bool utf8_is_continuation(char c) {
  return utf8_is_continuation(static_cast<unsigned char>(c));
}

// Length of the well-formed UTF-8 sequence starting at s[i]: 1 for ASCII, 2 to 4, or 0 when the
// bytes there start none (a stray continuation byte, 0xC0, 0xC1 or 0xF5-0xFF, a sequence cut off
// by the end of `s`, an overlong form, a surrogate, a code point above U+10FFFF). Precondition:
// i < s.size(). Inline: the JSON scanners call it for every non-ASCII byte.
inline size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  const size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (len == 0 || len > s.size() - i) return 0;
  // The second byte's range rules out overlong forms, surrogates and code points past U+10FFFF.
  const unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
  const unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (!utf8_is_continuation(byte(i + k))) return 0;
  }
  return len;
}

// The code point starting at s[pos]; advances pos past it. A byte that does not start a
// well-formed sequence yields U+FFFD and advances by that one byte. Precondition: pos < s.size().
char32_t decode_utf8(std::string_view s, size_t& pos);

// The code point that ends just before s[end] in valid UTF-8 (such as normalized text); moves end
// to its first byte (at most 3 continuation bytes back). Precondition: end > 0.
char32_t decode_utf8_before(std::string_view s, size_t& end);

// Appends code point `cp` (at most U+10FFFF) to `s` as UTF-8.
inline void append_utf8(std::string& s, std::uint32_t cp) {
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Characters in `text`: the bytes that do not continue a sequence (each invalid byte that is not a
// continuation byte counts as one).
size_t utf8_char_count(std::string_view text);

// Bytes taken by the first `max_chars` characters of `text` (all of it when it is shorter), in the
// sense of utf8_char_count.
size_t utf8_prefix_bytes(std::string_view text, size_t max_chars);

// Where the character holding byte `pos` starts: `pos` moved back over continuation bytes, as far
// as 0 when `text` has no lead byte before it. `pos` == text.size() is returned unchanged.
size_t utf8_char_start(std::string_view text, size_t pos);

// Length of the longest prefix of `text` that is at most `max_bytes` long and does not end in the
// middle of a UTF-8 sequence. Steps back at most 3 bytes: where more continuation bytes precede
// the limit the text is not UTF-8 and it is cut at `max_bytes`.
size_t utf8_cut_length(std::string_view text, size_t max_bytes);

// Length of `text` without a UTF-8 sequence cut off at its end (what is left after cutting a longer
// text at a byte limit, or what a stream can pass on before its next piece arrives).
size_t utf8_complete_prefix(std::string_view text);

// `text` with every byte that does not start a well-formed sequence replaced by U+FFFD (one per
// byte), so it can be embedded in JSON.
std::string sanitize_utf8(std::string_view text);

// How many leading bytes of a file are inspected to decide whether it is binary.
inline constexpr size_t kBinarySniffBytes = 8 * 1024;

// True when `prefix` (the first bytes of a file) contains a NUL byte.
bool looks_binary(std::string_view prefix);

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
