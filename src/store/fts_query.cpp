#include "store/fts_query.hpp"

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

}  // namespace keel::detail
