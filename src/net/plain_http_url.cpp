// Which URLs keel's own HTTP/1.1 client carries; see plain_http_url.hpp.
#include "net/plain_http_url.hpp"

#include <arpa/inet.h>

#include <cstdlib>

#include "net/http_text.hpp"

namespace keel::detail {
namespace {

bool set(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0';
}

// A path with "." or ".." segments: libcurl would remove them, so such URLs stay with it.
bool has_dot_segment(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(start, end - start);
    if (segment == "." || segment == "..") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::optional<PlainHttpUrl> plain_http_url(std::string_view url) {
  if (url.size() < 8 || !equals_lowercase(url.substr(0, 7), "http://")) return std::nullopt;
  url.remove_prefix(7);
  for (char c : url) {
    if (c < 0x21 || c > 0x7e || c == '#') return std::nullopt;
  }
  const size_t authority_end = url.find_first_of("/?");
  const std::string_view authority = url.substr(0, authority_end);
  std::string_view rest = authority_end == std::string_view::npos ? std::string_view() : url.substr(authority_end);
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;

  PlainHttpUrl out;
  std::string_view port;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    out.host = std::string(authority.substr(1, close - 1));
    in6_addr v6{};
    if (out.host.find('%') != std::string::npos || ::inet_pton(AF_INET6, out.host.c_str(), &v6) != 1)
      return std::nullopt;
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return std::nullopt;
    if (!after.empty()) port = after.substr(1);
    if (after.size() == 1) return std::nullopt;
  } else {
    const size_t colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return std::nullopt;
    }
    in_addr v4{};
    if (equals_lowercase(out.host, "localhost")) {
      out.host = "localhost";
    } else if (::inet_pton(AF_INET, out.host.c_str(), &v4) != 1) {
      return std::nullopt;  // a name to resolve: libcurl's resolver has the timeouts for it
    }
  }
  if (!port.empty()) {
    if (port.size() > 5) return std::nullopt;
    unsigned value = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value == 0 || value > 65535) return std::nullopt;
    out.port = static_cast<uint16_t>(value);
  }
  const std::string_view host_written =
      authority.substr(0, authority.front() == '[' ? authority.find(']') + 1 : authority.find(':'));
  out.host_header = std::string(host_written);
  if (out.port != 80) out.host_header += ":" + std::to_string(out.port);

  const std::string_view path = rest.substr(0, rest.find('?'));
  if (has_dot_segment(path)) return std::nullopt;
  out.target = rest.empty() || rest.front() == '?' ? "/" + std::string(rest) : std::string(rest);
  return out;
}

bool plain_http_ruled_out_by_environment() {
  if (set("http_proxy") || set("all_proxy") || set("ALL_PROXY")) return true;
  const char* choice = std::getenv("KEEL_HTTP_CLIENT");
  return choice != nullptr && std::string_view(choice) == "libcurl";
}

}  // namespace keel::detail
