#include "core/parsing/formats/tagged_reasoning.hpp"

#include "core/parsing/formats/special_tokens.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {

void split_tagged_reasoning(std::string_view text, const ReasoningTags& tags, std::string& visible, FormatResult& out) {
  constexpr size_t npos = std::string_view::npos;
  size_t pos = 0;
  const size_t first_close = find_literal(text, tags.close);
  const size_t first_open = first_close == npos ? npos : find_literal(text, tags.open);
  if (first_close != npos && first_close < first_open) {  // the template opened it in the prompt
    append_line(out.reasoning, text.substr(0, first_close));
    pos = first_close + tags.close.size();
  }
  while (pos < text.size()) {
    const size_t open = find_literal(text, tags.open, pos);
    if (open == npos) {
      visible.append(text.substr(pos));
      return;
    }
    visible.append(text.substr(pos, open - pos));
    const size_t body = open + tags.open.size();
    const size_t close = find_literal(text, tags.close, body);
    append_line(out.reasoning, text.substr(body, (close == npos ? text.size() : close) - body));
    if (close == npos) return;
    pos = close + tags.close.size();
  }
}

}  // namespace keel::detail
