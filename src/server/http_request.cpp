// Header lookups of HttpRequest; see http_request.hpp.
#include "server/http_request.hpp"

#include <algorithm>
#include <cstddef>

namespace keel::server {
namespace {

char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

bool HeaderNameLess::operator()(std::string_view a, std::string_view b) const {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const char ca = ascii_lower(a[i]);
    const char cb = ascii_lower(b[i]);
    if (ca != cb) return ca < cb;
  }
  return a.size() < b.size();
}

std::string_view HttpRequest::header(std::string_view name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string_view() : std::string_view(it->second);
}

bool HttpRequest::has_header(std::string_view name) const {
  return headers.find(name) != headers.end();
}

}  // namespace keel::server
