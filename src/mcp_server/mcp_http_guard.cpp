// Host, Origin, token, Accept and version checks of the MCP HTTP endpoint; see mcp_http_guard.hpp.
#include "mcp_server/mcp_http_guard.hpp"

#include <algorithm>
#include <cstddef>

namespace keel::mcp::detail {
namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// "[::1]" for "::1"; other names unchanged (lowercased).
std::string normalize_host(std::string_view host) {
  std::string out = lowercase(host);
  if (out.find(':') == std::string::npos || out.front() == '[') return out;
  std::string bracketed = "[";
  bracketed.append(out).append("]");
  return bracketed;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  const std::string h = lowercase(host);
  return h == "localhost" || h == "::1" || h == "[::1]" || h.rfind("127.", 0) == 0;
}

HostPolicy make_host_policy(std::string_view bind_host, const std::vector<std::string>& allowed_hosts,
                            const std::vector<std::string>& allowed_origins) {
  HostPolicy policy;
  for (const std::string& h : allowed_hosts) policy.hosts.push_back(normalize_host(h));
  if (policy.hosts.empty() && is_loopback_host(bind_host)) policy.hosts = {"localhost", "127.0.0.1", "[::1]"};
  for (const std::string& o : allowed_origins) {
    std::string origin = lowercase(o);
    while (!origin.empty() && origin.back() == '/') origin.pop_back();
    policy.origins.push_back(std::move(origin));
  }
  return policy;
}

std::string host_without_port(std::string_view host_header) {
  std::string_view h = trim(host_header);
  if (!h.empty() && h.front() == '[') {
    const size_t close = h.find(']');
    return lowercase(close == std::string_view::npos ? h : h.substr(0, close + 1));
  }
  const size_t colon = h.find(':');
  return lowercase(h.substr(0, colon));
}

std::string check_host_and_origin(const HostPolicy& policy, std::string_view host_header, bool has_origin,
                                  std::string_view origin_header) {
  const std::string host = host_without_port(host_header);
  if (!policy.hosts.empty() && !contains(policy.hosts, host)) {
    std::string why = "Host '";
    why.append(host_header).append("' is not allowed (DNS-rebinding protection); allowed hosts: ");
    for (size_t i = 0; i < policy.hosts.size(); ++i) why.append(i == 0 ? "" : ", ").append(policy.hosts[i]);
    return why;
  }
  if (!has_origin) return "";
  std::string origin = lowercase(trim(origin_header));
  while (!origin.empty() && origin.back() == '/') origin.pop_back();
  if (contains(policy.origins, origin)) return "";
  std::string why = "Origin '";
  why.append(origin_header).append("' is not allowed (DNS-rebinding protection)");
  const size_t scheme_end = origin.find("://");
  if (scheme_end == std::string::npos) return why;
  const std::string_view scheme = std::string_view(origin).substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return why;
  std::string_view authority = std::string_view(origin).substr(scheme_end + 3);
  authority = authority.substr(0, authority.find('/'));
  const std::string origin_host = host_without_port(authority);
  const bool ok = policy.hosts.empty() ? origin_host == host : contains(policy.hosts, origin_host);
  return ok ? "" : why;
}

bool bearer_token_matches(std::string_view authorization, std::string_view token) {
  authorization = trim(authorization);
  if (authorization.size() < 7 || lowercase(authorization.substr(0, 7)) != "bearer ") return false;
  const std::string_view given = trim(authorization.substr(7));
  // Every byte of the expected token is looked at whatever `given` holds, so the time taken does
  // not tell an attacker how long a prefix was right.
  unsigned diff = given.size() == token.size() ? 0U : 1U;
  for (size_t i = 0; i < token.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0U;
    diff |= static_cast<unsigned>(g ^ static_cast<unsigned char>(token[i]));
  }
  return diff == 0 && !token.empty();
}

bool accepts_media_type(std::string_view accept, std::string_view media_type) {
  const std::string wanted = lowercase(media_type);
  std::string wanted_any = wanted.substr(0, wanted.find('/'));
  wanted_any.append("/*");
  while (!accept.empty()) {
    const size_t comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    item = trim(item.substr(0, item.find(';')));
    const std::string range = lowercase(item);
    if (range == wanted || range == wanted_any || range == "*/*") return true;
    if (comma == std::string_view::npos) break;
    accept.remove_prefix(comma + 1);
  }
  return false;
}

bool is_supported_protocol_version(std::string_view version) {
  return version == "2025-03-26" || version == "2025-06-18" || version == "2025-11-25";
}

}  // namespace keel::mcp::detail
