// Route matching; see http_router.hpp.
#include "server/http_router.hpp"

#include <utility>

namespace keel::server {

void HttpRouter::add(std::string method, std::string pattern, HttpHandler handler) {
  routes_[std::move(pattern)][std::move(method)] = std::move(handler);
}

HttpRouter::Match HttpRouter::match(std::string_view method, std::string_view path) const {
  const std::map<std::string, HttpHandler>* best = nullptr;
  size_t best_length = 0;
  bool best_exact = false;
  for (const auto& [pattern, methods] : routes_) {
    if (!pattern.empty() && pattern.back() == '*') {
      const std::string_view prefix(pattern.data(), pattern.size() - 1);
      if (best_exact || path.substr(0, prefix.size()) != prefix) continue;
      if (best == nullptr || prefix.size() > best_length) {
        best = &methods;
        best_length = prefix.size();
      }
    } else if (pattern == path) {
      best = &methods;
      best_exact = true;
    }
  }
  Match m;
  if (best == nullptr) return m;
  auto it = best->find(std::string(method));
  if (it != best->end()) {
    m.status = 200;
    m.handler = &it->second;
    return m;
  }
  m.status = 405;
  for (const auto& [name, handler] : *best) {
    if (!m.allow.empty()) m.allow.append(", ");
    m.allow.append(name);
  }
  return m;
}

}  // namespace keel::server
