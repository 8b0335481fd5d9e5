#include "knowledge/knowledge_skill_paths.hpp"

namespace keel::detail {

bool is_url_link(std::string_view link) {
  return link.find("://") != std::string_view::npos || link.starts_with("//") ||
         link.find(':') != std::string_view::npos;
}

std::string relative_path_problem(const std::filesystem::path& rel) {
  if (rel.empty()) return "is empty";
  if (rel.is_absolute()) return "is an absolute path";
  for (const std::filesystem::path& part : rel) {
    if (part == "..") return "goes up with '..'";
  }
  return {};
}

bool path_inside(const std::filesystem::path& path, const std::filesystem::path& root) {
  auto r = root.begin();
  auto p = path.begin();
  for (; r != root.end(); ++r, ++p) {
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

}  // namespace keel::detail
