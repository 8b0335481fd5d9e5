#include "store/fts_query.hpp"

#include <algorithm>
#include <set>

namespace keel::detail {

std::string fts5_match_any(std::string_view text, size_t max_terms) {
  std::set<std::string_view> seen;
  std::string query;
  size_t i = 0;
  while (i < text.size() && seen.size() < max_terms) {
    // Control characters (NUL included) separate words like spaces do.
    auto is_space = [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; };
    while (i < text.size() && is_space(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i == start) break;
    std::string_view word = text.substr(start, i - start);
    if (!seen.insert(word).second) continue;
    if (!query.empty()) query += " OR ";
    query += '"';
    for (char c : word) {
      if (c == '"') query += '"';
      query += c;
    }
    query += '"';
  }
  return query;
}

namespace {

// The length of the valid UTF-8 sequence of a letter outside ASCII at `text[i]`; 0 when the bytes
// there are not one (they then only separate words: PostgreSQL refuses invalid UTF-8).
size_t utf8_letter_length(std::string_view text, size_t i) {
  auto b = static_cast<unsigned char>(text[i]);
  size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
  if (b >= 0xF5) n = 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// Length of the word character at `text[i]` (an ASCII letter, digit or '_', or a whole UTF-8
// sequence); 0 for a separator.
size_t word_char_length(std::string_view text, size_t i) {
  char c = text[i];
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return 1;
  return static_cast<unsigned char>(c) >= 0x80 ? utf8_letter_length(text, i) : 0;
}

}  // namespace

std::string tsquery_match_any(std::string_view text, size_t max_terms) {
  // PostgreSQL ignores (with a notice) words longer than this; keep the query within it.
  constexpr size_t kMaxWordBytes = 2000;
  std::set<std::string_view> seen;
  std::string query;
  size_t i = 0;
  while (i < text.size() && seen.size() < max_terms) {
    while (i < text.size() && word_char_length(text, i) == 0) ++i;
    size_t start = i;
    while (i < text.size()) {
      size_t n = word_char_length(text, i);
      if (n == 0) break;
      i += n;
    }
    if (i == start) break;
    std::string_view word = text.substr(start, std::min(i - start, kMaxWordBytes));
    if (word.size() < i - start) continue;  // too long to be a word anyone searches for
    if (!seen.insert(word).second) continue;
    if (!query.empty()) query += " | ";
    query += '\'';
    query += word;
    query += '\'';
  }
  return query;
}

}  // namespace keel::detail
