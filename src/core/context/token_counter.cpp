#include "keel/core/token_counter.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/text/utf8_text.hpp"

namespace keel {
namespace {

// Han (incl. radicals and extensions), kana, Hangul, CJK punctuation and fullwidth forms.
bool is_cjk(uint32_t cp) {
  return (cp >= 0x1100 && cp <= 0x11FF) ||  // Hangul Jamo
         (cp >= 0x2E80 && cp <= 0x9FFF) ||  // radicals, CJK punctuation, kana, Bopomofo, Hangul compat., Han + ext. A
         (cp >= 0xA960 && cp <= 0xA97F) ||  // Hangul Jamo Extended-A
         (cp >= 0xAC00 && cp <= 0xD7FF) ||  // Hangul syllables, Jamo Extended-B
         (cp >= 0xF900 && cp <= 0xFAFF) ||  // CJK compatibility ideographs
         (cp >= 0xFE10 && cp <= 0xFE1F) ||  // vertical forms
         (cp >= 0xFE30 && cp <= 0xFE4F) ||  // CJK compatibility forms
         (cp >= 0xFF00 && cp <= 0xFFEF) ||  // halfwidth and fullwidth forms
         (cp >= 0x20000 && cp <= 0x3FFFF);  // Han extensions B-H, compatibility supplement
}

using detail::utf8_is_continuation;

struct CharClasses {
  size_t other = 0;
  size_t cjk = 0;
};

// Classifies the code point whose lead byte is at s[i]; CJK needs 3- or 4-byte sequences.
void classify_lead(const unsigned char* s, size_t n, size_t i, CharClasses& out) {
  unsigned char b = s[i];
  if (b >= 0xE0 && b <= 0xEF && i + 2 < n && utf8_is_continuation(s[i + 1]) && utf8_is_continuation(s[i + 2])) {
    uint32_t cp = (static_cast<uint32_t>(b & 0x0F) << 12) | (static_cast<uint32_t>(s[i + 1] & 0x3F) << 6) |
                  static_cast<uint32_t>(s[i + 2] & 0x3F);
    ++(is_cjk(cp) ? out.cjk : out.other);
    return;
  }
  if (b >= 0xF0 && b <= 0xF4 && i + 3 < n && utf8_is_continuation(s[i + 1]) && utf8_is_continuation(s[i + 2]) &&
      utf8_is_continuation(s[i + 3])) {
    uint32_t cp = (static_cast<uint32_t>(b & 0x07) << 18) | (static_cast<uint32_t>(s[i + 1] & 0x3F) << 12) |
                  (static_cast<uint32_t>(s[i + 2] & 0x3F) << 6) | static_cast<uint32_t>(s[i + 3] & 0x3F);
    ++(is_cjk(cp) ? out.cjk : out.other);
    return;
  }
  ++out.other;  // 2-byte sequences (Latin, Greek, Cyrillic, ...) and invalid lead bytes
}

// Counts [i, end) eight bytes at a time where they are ASCII.
void classify_range(const unsigned char* s, size_t n, size_t& i, size_t end, CharClasses& out) {
  while (i + 8 <= end) {
    uint64_t word;
    std::memcpy(&word, s + i, 8);
    if ((word & 0x8080808080808080ULL) == 0) {
      out.other += 8;
      i += 8;
      continue;
    }
    for (size_t stop = i + 8; i < stop; ++i) {
      if (s[i] < 0x80)
        ++out.other;
      else if (!utf8_is_continuation(s[i]))
        classify_lead(s, n, i, out);
    }
  }
  for (; i < end; ++i) {
    if (s[i] < 0x80)
      ++out.other;
    else if (!utf8_is_continuation(s[i]))
      classify_lead(s, n, i, out);
  }
}

CharClasses classify(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
  CharClasses out;
  size_t i = 0;
  // ASCII fast path, 32 bytes at a time. Only lead bytes are classified, so a multi-byte sequence
  // straddling two chunks is still counted once.
  while (i + 32 <= n) {
    uint64_t w[4];
    std::memcpy(w, s + i, 32);
    if (((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL) == 0) {
      out.other += 32;
      i += 32;
    } else {
      classify_range(s, n, i, i + 32, out);
    }
  }
  classify_range(s, n, i, n, out);
  return out;
}

}  // namespace

size_t TokenCounter::count_message(const Message& m) const {
  size_t n = count(m.content) + count(m.reasoning) + per_message_overhead();
  for (const ToolCall& c : m.tool_calls) n += count(c.name) + count(c.arguments);
  return n;
}

size_t TokenCounter::count_tool(const ToolSpec& t) const {
  return count(t.name) + count(t.description) + count(t.parameters_schema) + per_message_overhead();
}

EstimatingTokenCounter::EstimatingTokenCounter(EstimatorOptions options) : options_(options) {
  EstimatorOptions defaults;
  if (!(options_.chars_per_token > 0)) options_.chars_per_token = defaults.chars_per_token;
  if (!(options_.cjk_chars_per_token > 0)) options_.cjk_chars_per_token = defaults.cjk_chars_per_token;
}

size_t EstimatingTokenCounter::count(std::string_view text) const {
  if (text.empty()) return 0;
  CharClasses c = classify(text);
  double tokens = static_cast<double>(c.other) / options_.chars_per_token +
                  static_cast<double>(c.cjk) / options_.cjk_chars_per_token;
  // The epsilon keeps an exact quotient computed as 3.0000000001 from rounding up to 4.
  return static_cast<size_t>(std::ceil(tokens - 1e-9));
}

TokenBreakdown count_breakdown(const TokenCounter& counter, std::span<const Message> history,
                               std::span<const ToolSpec> tools) {
  TokenBreakdown b;
  for (const ToolSpec& t : tools) b.tools += counter.count_tool(t);
  for (const Message& m : history) {
    size_t n = counter.count_message(m);
    switch (m.role) {
      case Role::kSystem:
        b.system += n;
        break;
      case Role::kUser:
        b.user += n;
        break;
      case Role::kAssistant:
        b.assistant += n;
        break;
      case Role::kTool:
        b.tool_results += n;
        break;
    }
  }
  return b;
}

}  // namespace keel
