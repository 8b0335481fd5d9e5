// Markdown links of an index SKILL.md: inline links `[text](target "title")` and `<target>`
// forms, outside ``` / ~~~ fences. Only targets whose last path segment is SKILL.md are kept.
#include <string>
#include <string_view>
#include <vector>

#include "keel/knowledge_skills.hpp"

namespace keel {
namespace {

bool is_fence_line(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos || i > 3) return false;
  return line.substr(i).starts_with("```") || line.substr(i).starts_with("~~~");
}

// The target of the link whose "(" is at `open` in `line`, without title, fragment or query.
std::string link_target(std::string_view line, size_t open) {
  size_t i = open + 1;
  while (i < line.size() && line[i] == ' ') ++i;
  std::string target;
  if (i < line.size() && line[i] == '<') {
    size_t close = line.find('>', i + 1);
    if (close == std::string_view::npos) return {};
    target = std::string(line.substr(i + 1, close - i - 1));
  } else {
    int depth = 0;
    for (; i < line.size(); ++i) {
      char c = line[i];
      if (c == ' ' || c == '\t') break;
      if (c == '(') ++depth;
      if (c == ')') {
        if (depth == 0) break;
        --depth;
      }
      target.push_back(c);
    }
  }
  size_t cut = target.find_first_of("#?");
  if (cut != std::string::npos) target.resize(cut);
  return target;
}

bool names_skill_file(std::string_view target) {
  if (target == "SKILL.md") return true;
  return target.size() > 9 && target.ends_with("/SKILL.md");
}

}  // namespace

std::vector<std::string> skill_index_links(std::string_view body) {
  std::vector<std::string> out;
  bool fenced = false;
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t end = body.find('\n', pos);
    std::string_view line = body.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (is_fence_line(line)) {
      fenced = !fenced;
    } else if (!fenced) {
      for (size_t at = line.find("]("); at != std::string_view::npos; at = line.find("](", at + 2)) {
        std::string target = link_target(line, at + 1);
        if (names_skill_file(target)) out.push_back(std::move(target));
      }
    }
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return out;
}

}  // namespace keel
