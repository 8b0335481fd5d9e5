// Host and Origin checks; see host_origin_policy.hpp.
#include "server/host_origin_policy.hpp"

#include "core/text/text_util.hpp"

#include <algorithm>

namespace keel::server {
namespace {

using keel::detail::lowercase;
using keel::detail::trim;

bool contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// "[::1]" for "::1"; other names unchanged (lowercased).
std::string normalize_host(std::string_view host) {
  std::string out = lowercase(host);
  if (out.find(':') == std::string::npos || out.front() == '[') return out;
  return "[" + out + "]";
}

// "http://Example:80/" -> "http://example:80".
std::string normalize_origin(std::string_view origin) {
  std::string out = lowercase(trim(origin));
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  const std::string h = lowercase(host);
  return h == "localhost" || h == "::1" || h == "[::1]" || h.rfind("127.", 0) == 0;
}

HostOriginPolicy make_host_origin_policy(std::string_view bind_host, const std::vector<std::string>& allowed_hosts,
                                         const std::vector<std::string>& allowed_origins) {
  HostOriginPolicy policy;
  for (const std::string& h : allowed_hosts) policy.hosts.push_back(normalize_host(h));
  if (policy.hosts.empty() && is_loopback_host(bind_host)) policy.hosts = {"localhost", "127.0.0.1", "[::1]"};
  for (const std::string& o : allowed_origins) policy.origins.push_back(normalize_origin(o));
  return policy;
}

std::string host_without_port(std::string_view host_header) {
  std::string_view h = trim(host_header);
  if (!h.empty() && h.front() == '[') {
    const size_t close = h.find(']');
    return lowercase(close == std::string_view::npos ? h : h.substr(0, close + 1));
  }
  return lowercase(h.substr(0, h.find(':')));
}

std::string check_host(const HostOriginPolicy& policy, std::string_view host_header) {
  if (policy.hosts.empty() || contains(policy.hosts, host_without_port(host_header))) return "";
  std::string why = "Host '";
  why.append(host_header).append("' is not allowed (DNS-rebinding protection); allowed hosts: ");
  for (size_t i = 0; i < policy.hosts.size(); ++i) why.append(i == 0 ? "" : ", ").append(policy.hosts[i]);
  why.append(" (keel serve --allow-host adds one)");
  return why;
}

bool origin_listed(const HostOriginPolicy& policy, std::string_view origin) {
  if (trim(origin).empty()) return false;
  return contains(policy.origins, "*") || contains(policy.origins, normalize_origin(origin));
}

std::string check_origin(const HostOriginPolicy& policy, std::string_view host_header, std::string_view origin) {
  if (origin_listed(policy, origin)) return "";
  const std::string o = normalize_origin(origin);
  const size_t scheme_end = o.find("://");
  if (scheme_end != std::string::npos) {
    const std::string_view scheme = std::string_view(o).substr(0, scheme_end);
    const std::string_view authority = std::string_view(o).substr(scheme_end + 3);
    const bool web = scheme == "http" || scheme == "https";
    if (web && authority.find('/') == std::string_view::npos && authority == lowercase(trim(host_header)) &&
        check_host(policy, host_header).empty()) {
      return "";
    }
  }
  std::string why = "Origin '";
  why.append(origin).append("' may not call this server: only its own pages and origins given with --cors-origin may");
  return why;
}

}  // namespace keel::server
