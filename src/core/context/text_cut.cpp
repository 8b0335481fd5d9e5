#include "core/context/text_cut.hpp"

namespace keel::detail {

std::string cut_at_word(std::string_view s, size_t max_chars) {
  size_t limit = utf8_prefix_bytes(s, max_chars);
  if (limit == s.size()) return std::string(s);
  // A space right at the limit is a clean word end too, hence the search from `limit`.
  size_t space = s.rfind(' ', limit);
  size_t cut = (space != std::string_view::npos && space >= limit / 2) ? space : limit;
  std::string_view kept = s.substr(0, cut);
  while (!kept.empty() && kept.back() == ' ') kept.remove_suffix(1);
  return std::string(kept) + "…";
}

std::string_view first_nonempty_line(std::string_view s) {
  size_t line_start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\n') {
      line_start = i + 1;
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') {
      size_t nl = s.find('\n', i);
      return s.substr(line_start, (nl == std::string_view::npos ? s.size() : nl) - line_start);
    }
  }
  return {};
}

}  // namespace keel::detail
