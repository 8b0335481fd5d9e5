// match_uri_template: RFC 6570 level 1 and reserved expansion, matched right to left of each
// variable by the literal text that follows it.
#include "mcp_server/server_catalog.hpp"

namespace keel::mcp {

std::optional<std::map<std::string, std::string>> match_uri_template(std::string_view uri_template,
                                                                     std::string_view uri) {
  std::map<std::string, std::string> values;
  size_t t = 0;
  size_t u = 0;
  while (t < uri_template.size()) {
    if (uri_template[t] != '{') {
      if (u >= uri.size() || uri[u] != uri_template[t]) return std::nullopt;
      ++t;
      ++u;
      continue;
    }
    size_t close = uri_template.find('}', t);
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view name = uri_template.substr(t + 1, close - t - 1);
    bool reserved = !name.empty() && name.front() == '+';
    if (reserved) name.remove_prefix(1);
    if (name.empty()) return std::nullopt;
    t = close + 1;
    // The literal text after the variable (up to the next variable or the end) ends its value.
    size_t next_var = uri_template.find('{', t);
    std::string_view literal = uri_template.substr(t, next_var == std::string_view::npos ? std::string_view::npos
                                                                                        : next_var - t);
    size_t end;
    if (literal.empty()) {
      end = next_var == std::string_view::npos ? uri.size() : std::string_view::npos;
      if (end == std::string_view::npos) return std::nullopt;  // two variables side by side
    } else {
      end = next_var == std::string_view::npos && t + literal.size() == uri_template.size()
                ? (uri.size() >= literal.size() && uri.substr(uri.size() - literal.size()) == literal
                       ? uri.size() - literal.size()
                       : std::string_view::npos)
                : uri.find(literal, u);
      if (end == std::string_view::npos || end < u) return std::nullopt;
    }
    std::string_view value = uri.substr(u, end - u);
    if (value.empty()) return std::nullopt;
    if (!reserved && value.find('/') != std::string_view::npos) return std::nullopt;
    values[std::string(name)] = std::string(value);
    u = end;
  }
  if (u != uri.size()) return std::nullopt;
  return values;
}

}  // namespace keel::mcp
