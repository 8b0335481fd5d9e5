// Small private helpers shared by the core's files (and the layers above through "core/...").
// UTF-8 itself (decoding, encoding, cutting, counting) is core/text/utf8_text.hpp, included here.
#pragma once

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/text/utf8_text.hpp"

namespace keel::detail {

// Whether `c` is a space, tab, carriage return or line feed (JSON's whitespace).
inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// `s` without leading and trailing ASCII whitespace (space, tab, CR, LF).
inline std::string_view trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && is_blank(s[b])) ++b;
  while (e > b && is_blank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Whether the n bytes at a and b are equal: (possibly overlapping) word compares for the short
// spans of markers, memcmp past sixteen bytes.
inline bool same_span(const char* a, const char* b, size_t n) {
  auto load8 = [](const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
  auto load4 = [](const char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  };
  if (n > 16) return std::memcmp(a, b, n) == 0;
  if (n >= 8) return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
  if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// s.find(lit, from) for a literal marker: its first byte looked for with memchr, the rest compared
// in place (string_view::find calls memcmp at every candidate).
inline size_t find_literal(std::string_view s, std::string_view lit, size_t from = 0) {
  const size_t n = lit.size();
  if (from > s.size() || s.size() - from < n) return std::string_view::npos;
  if (n == 0) return from;
  const char* const base = s.data();
  const char* p = base + from;
  const char* const last = base + (s.size() - n);  // the last place the literal can start
  for (;;) {
    p = static_cast<const char*>(std::memchr(p, lit[0], static_cast<size_t>(last - p) + 1));
    if (p == nullptr) return std::string_view::npos;
    if (same_span(p + 1, lit.data() + 1, n - 1)) return static_cast<size_t>(p - base);
    if (p == last) return std::string_view::npos;
    ++p;
  }
}

// The first position at or after `pos` that is not whitespace (trim's), or s.size().
inline size_t skip_blanks(std::string_view s, size_t pos) {
  while (pos < s.size() && is_blank(s[pos])) ++pos;
  return pos;
}

// "<where>: <line>", the shape of repair and error lines, built with one allocation.
inline std::string prefixed(std::string_view where, std::string_view line) {
  std::string out;
  out.reserve(where.size() + 2 + line.size());
  out.append(where);
  out.append(": ");
  out.append(line);
  return out;
}
// The same from a line that is no longer needed: written in front of it, in place when its room
// allows (repair lines are made with room to spare).
inline std::string prefixed(std::string_view where, std::string&& line) {
  if (line.capacity() < where.size() + 2 + line.size()) return prefixed(where, std::string_view(line));
  line.insert(0, where.size() + 2, ':');
  where.copy(line.data(), where.size());
  line[where.size() + 1] = ' ';
  return std::move(line);
}

// The pieces of a message joined, with one allocation (a chain of operator+ makes one per piece).
inline std::string concat(std::initializer_list<std::string_view> parts) {
  size_t size = 0;
  for (std::string_view p : parts) size += p.size();
  std::string out;
  out.reserve(size);
  for (std::string_view p : parts) out.append(p);
  return out;
}

// A number's decimal digits as a string_view for concat(), without an allocation. Use it within
// the expression that made it.
class Decimal {
 public:
  explicit Decimal(std::uint64_t n)
      : size_(static_cast<size_t>(std::to_chars(buf_, buf_ + sizeof(buf_), n).ptr - buf_)) {}
  operator std::string_view() const { return {buf_, size_}; }

 private:
  char buf_[20];
  size_t size_;
};

// ASCII lowercase copy.
inline std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Whether `s` starts with `prefix`, ignoring ASCII case; `prefix` must be lowercase.
inline bool starts_with_ascii_icase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

// `s` cut to at most `max` bytes (at a UTF-8 character boundary) with "…" when it was longer.
inline std::string shorten(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, utf8_char_start(s, max))) + "…";
}

// `s` with line feeds turned into spaces, for one-line summaries.
inline std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  return out;
}

// `s` on one line: control characters and runs of spaces become one space, none at either end.
inline std::string collapse_spaces(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// std::visit with a set of lambdas.
template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace keel::detail
