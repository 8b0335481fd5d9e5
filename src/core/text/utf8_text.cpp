#include "core/text/utf8_text.hpp"

#include <time.h>

#include <cstdint>

namespace keel::detail {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when the bytes there are invalid
// (bad lead byte, missing or bad continuation bytes, overlong form, surrogate, > U+10FFFF).
size_t valid_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t len = 0;
  uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

bool looks_binary(std::string_view prefix) {
  return prefix.substr(0, kBinarySniffBytes).find('\0') != std::string_view::npos;
}

size_t utf8_cut_length(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text.size();
  size_t cut = max_bytes;
  // Step back over continuation bytes (at most 3) so the cut lands on a sequence boundary.
  size_t steps = 0;
  while (cut > 0 && steps < 3 && (static_cast<uint8_t>(text[cut]) & 0xC0) == 0x80) {
    --cut;
    ++steps;
  }
  if ((static_cast<uint8_t>(text[cut]) & 0xC0) == 0x80) return max_bytes;  // not UTF-8 anyway
  return cut;
}

size_t utf8_complete_prefix(std::string_view text) {
  // Find the lead byte of the last sequence (at most 3 continuation bytes back).
  size_t i = text.size();
  size_t continuation = 0;
  while (i > 0 && continuation < 4 && (static_cast<uint8_t>(text[i - 1]) & 0xC0) == 0x80) {
    --i;
    ++continuation;
  }
  if (i == 0 || continuation >= 4) return text.size();  // not UTF-8; leave it alone
  const uint8_t lead = static_cast<uint8_t>(text[i - 1]);
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
    const size_t len = valid_sequence_length(text, i);
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

std::string iso8601_utc(std::time_t t) {
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return "(invalid time)";
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

}  // namespace keel::detail
