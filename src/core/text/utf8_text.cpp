// The UTF-8 helpers; see utf8_text.hpp.
#include "core/text/utf8_text.hpp"

#include <time.h>

namespace keel::detail {

char32_t decode_utf8(std::string_view s, size_t& pos) {
  const size_t len = utf8_sequence_length(s, pos);
  if (len == 0) {
    ++pos;
    return kReplacementChar;
  }
  const auto b0 = static_cast<unsigned char>(s[pos]);
  static constexpr unsigned char kLeadBits[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t cp = b0 & kLeadBits[len];
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[pos + k]) & 0x3F);
  pos += len;
  return cp;
}

char32_t decode_utf8_before(std::string_view s, size_t& end) {
  size_t start = end - 1;
  while (start > 0 && end - start < 4 && utf8_is_continuation(s[start])) --start;
  size_t pos = start;
  const char32_t cp = decode_utf8(s, pos);
  end = start;
  return cp;
}

size_t utf8_char_count(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += utf8_is_continuation(c) ? 0 : 1;
  return n;
}

size_t utf8_prefix_bytes(std::string_view text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (utf8_is_continuation(text[i])) continue;
    if (chars == max_chars) return i;
    ++chars;
  }
  return text.size();
}

size_t utf8_char_start(std::string_view text, size_t pos) {
  if (pos >= text.size()) return pos;
  while (pos > 0 && utf8_is_continuation(text[pos])) --pos;
  return pos;
}

size_t utf8_cut_length(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text.size();
  size_t cut = max_bytes;
  // Step back over continuation bytes (at most 3) so the cut lands on a sequence boundary.
  size_t steps = 0;
  while (cut > 0 && steps < 3 && utf8_is_continuation(text[cut])) {
    --cut;
    ++steps;
  }
  if (utf8_is_continuation(text[cut])) return max_bytes;  // not UTF-8 anyway
  return cut;
}

size_t utf8_complete_prefix(std::string_view text) {
  // Find the lead byte of the last sequence (at most 3 continuation bytes back).
  size_t i = text.size();
  size_t continuation = 0;
  while (i > 0 && continuation < 4 && utf8_is_continuation(text[i - 1])) {
    --i;
    ++continuation;
  }
  if (i == 0 || continuation >= 4) return text.size();  // not UTF-8; leave it alone
  const auto lead = static_cast<unsigned char>(text[i - 1]);
  size_t need = 1;
  if ((lead & 0xE0) == 0xC0) need = 2;
  else if ((lead & 0xF0) == 0xE0) need = 3;
  else if ((lead & 0xF8) == 0xF0) need = 4;
  return continuation + 1 < need ? i - 1 : text.size();
}

std::string sanitize_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t len = utf8_sequence_length(text, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

bool looks_binary(std::string_view prefix) {
  return prefix.substr(0, kBinarySniffBytes).find('\0') != std::string_view::npos;
}

std::string iso8601_utc(std::time_t t) {
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return "(invalid time)";
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

}  // namespace keel::detail
