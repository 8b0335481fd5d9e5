#include "core/guards/result_budget.hpp"

#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

// The best cut position <= limit: prefer a line break, then a sentence end, then a space, as long
// as it keeps at least half of the budget; otherwise a hard cut on a UTF-8 boundary.
size_t cut_position(const std::string& s, size_t limit) {
  size_t floor = limit / 2;
  size_t nl = s.rfind('\n', limit);
  if (nl != std::string::npos && nl >= floor) return nl + 1;
  for (size_t i = limit; i > floor; --i) {
    char c = s[i - 1];
    if ((c == '.' || c == '!' || c == '?') && i < s.size() && (s[i] == ' ' || s[i] == '\n')) return i;
  }
  size_t sp = s.rfind(' ', limit);
  if (sp != std::string::npos && sp >= floor) return sp + 1;
  return utf8_char_start(s, limit);
}

}  // namespace

bool apply_result_budget(std::string& content, size_t budget) {
  if (budget == 0 || content.size() <= budget) return false;
  size_t original = content.size();
  content.resize(cut_position(content, budget));
  while (!content.empty() && (content.back() == ' ')) content.pop_back();
  if (!content.empty() && content.back() != '\n') content.push_back('\n');
  content += "[result truncated — original size: " + std::to_string(original) + " chars]";
  return true;
}

}  // namespace keel::detail
