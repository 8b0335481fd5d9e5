// Request-head parsing; see http_request_parser.hpp. The rules follow RFC 9112 sections 2-6.
#include "server/http_request_parser.hpp"

#include <cstdint>
#include <limits>
#include <utility>

namespace keel::server {
namespace {

constexpr std::string_view kCrlf = "\r\n";

bool is_tchar(char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_tchar(c)) return false;
  }
  return true;
}

// Field values: visible characters, spaces, tabs and obs-text; no other control characters.
bool is_field_value(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return false;
  }
  return true;
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Calls `fn` with each trimmed, non-empty element of a comma-separated list.
template <class Fn>
void for_each_list_item(std::string_view list, Fn fn) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = trim_ows(list.substr(0, comma));
    if (!item.empty()) fn(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

ParsedHead fail(int status, std::string message) {
  ParsedHead head;
  head.error_status = status;
  head.error_message = std::move(message);
  return head;
}

// A short, printable excerpt of client input for error messages.
std::string excerpt(std::string_view s) {
  constexpr size_t kMax = 80;
  std::string out;
  for (char c : s.substr(0, kMax)) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(u < 0x20 || u >= 0x7f ? '?' : c);
  }
  if (s.size() > kMax) out.append("...");
  return out;
}

// Splits the target into path and query and decodes both.
bool parse_target(std::string_view target, HttpRequest& request, std::string& error) {
  std::string_view rest = target;
  if (rest == "*") {
    request.path = "*";
    return true;
  }
  // absolute-form (sent to proxies, allowed for servers): drop "scheme://authority".
  const size_t scheme_end = rest.find("://");
  if (!rest.empty() && rest.front() != '/' && scheme_end != std::string_view::npos) {
    rest.remove_prefix(scheme_end + 3);
    const size_t slash = rest.find_first_of("/?");
    rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
    if (!rest.empty() && rest.front() == '?') {
      error = "the request target has no path";
      return false;
    }
  }
  if (rest.empty() || rest.front() != '/') {
    error = "the request target must start with '/': '";
    error.append(excerpt(target)).append("'");
    return false;
  }
  const size_t q = rest.find('?');
  std::optional<std::string> path = percent_decode(rest.substr(0, q), false);
  if (!path) {
    error = "the request path has a bad percent escape: '";
    error.append(excerpt(target)).append("'");
    return false;
  }
  request.path = std::move(*path);
  if (q != std::string_view::npos) {
    auto query = parse_query(rest.substr(q + 1));
    if (!query) {
      error = "the query string has a bad percent escape: '";
      error.append(excerpt(target)).append("'");
      return false;
    }
    request.query = std::move(*query);
  }
  return true;
}

// "GET /path HTTP/1.1"
ParsedHead parse_request_line(std::string_view line) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    std::string msg = "malformed request line (expected 'METHOD TARGET HTTP/1.1'): '";
    msg.append(excerpt(line)).append("'");
    return fail(400, std::move(msg));
  }
  ParsedHead head;
  HttpRequest& request = head.request;
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) {
    std::string msg = "malformed request method: '";
    msg.append(excerpt(method)).append("'");
    return fail(400, std::move(msg));
  }
  if (target.empty() || !is_field_value(target) || target.find('\t') != std::string_view::npos) {
    std::string msg = "malformed request target: '";
    msg.append(excerpt(target)).append("'");
    return fail(400, std::move(msg));
  }
  if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && version[6] == '.' && version[5] >= '0' &&
      version[5] <= '9' && version[7] >= '0' && version[7] <= '9') {
    if (version[5] != '1') {
      std::string msg = "HTTP version not supported: '";
      msg.append(excerpt(version)).append("' (use HTTP/1.1)");
      return fail(505, std::move(msg));
    }
    request.version_minor = version[7] == '0' ? 0 : 1;
  } else {
    std::string msg = "malformed HTTP version: '";
    msg.append(excerpt(version)).append("'");
    return fail(400, std::move(msg));
  }
  request.method = std::string(method);
  request.target = std::string(target);
  std::string error;
  if (!parse_target(target, request, error)) return fail(400, std::move(error));
  return head;
}

// Applies Content-Length, Transfer-Encoding, Connection, Expect and Host to the framing fields.
ParsedHead apply_framing(ParsedHead head, size_t max_body_bytes) {
  const HttpRequest& request = head.request;
  if (request.has_header("transfer-encoding")) {
    return fail(411,
                "request bodies with Transfer-Encoding are not supported: send the body with a Content-Length header");
  }
  if (request.has_header("content-length")) {
    std::optional<uint64_t> length;
    bool bad = false;
    for_each_list_item(request.header("content-length"), [&](std::string_view item) {
      uint64_t value = 0;
      for (char c : item) {
        if (c < '0' || c > '9') {
          bad = true;
          return;
        }
        if (value > (std::numeric_limits<uint64_t>::max() - 9) / 10) {
          value = std::numeric_limits<uint64_t>::max();
          break;
        }
        value = value * 10 + static_cast<uint64_t>(c - '0');
      }
      if (length && *length != value) bad = true;
      length = value;
    });
    if (bad || !length) {
      std::string msg = "malformed Content-Length: '";
      msg.append(excerpt(request.header("content-length"))).append("'");
      return fail(400, std::move(msg));
    }
    if (*length > max_body_bytes) {
      std::string msg = "request body too large: ";
      msg.append(std::to_string(*length)).append(" bytes, the limit is ").append(std::to_string(max_body_bytes));
      return fail(413, std::move(msg));
    }
    head.content_length = static_cast<size_t>(*length);
  }
  head.keep_alive = request.version_minor >= 1;
  for_each_list_item(request.header("connection"), [&](std::string_view item) {
    if (iequals(item, "close")) head.keep_alive = false;
    if (iequals(item, "keep-alive") && request.version_minor == 0) head.keep_alive = true;
  });
  for_each_list_item(request.header("expect"), [&](std::string_view item) {
    if (iequals(item, "100-continue")) head.expect_continue = true;
  });
  if (request.version_minor >= 1) {
    auto host = request.headers.find("host");
    if (host == request.headers.end()) return fail(400, "missing Host header (required by HTTP/1.1)");
    if (host->second.find(',') != std::string::npos) return fail(400, "more than one Host header");
  }
  return head;
}

}  // namespace

size_t find_head_end(std::string_view buffer) {
  const size_t pos = buffer.find("\r\n\r\n");
  return pos == std::string_view::npos ? 0 : pos + 4;
}

ParsedHead parse_request_head(std::string_view head_text, size_t max_body_bytes) {
  size_t line_end = head_text.find(kCrlf);
  if (line_end == std::string_view::npos) return fail(400, "incomplete request head");
  ParsedHead head = parse_request_line(head_text.substr(0, line_end));
  if (head.error_status != 0) return head;
  HttpHeaderMap& headers = head.request.headers;
  size_t pos = line_end + 2;
  for (;;) {
    line_end = head_text.find(kCrlf, pos);
    if (line_end == std::string_view::npos) return fail(400, "incomplete request head (no blank line)");
    const std::string_view line = head_text.substr(pos, line_end - pos);
    pos = line_end + 2;
    if (line.empty()) break;
    if (line.front() == ' ' || line.front() == '\t') {
      return fail(400, "folded header lines are not allowed (RFC 9112 section 5.2)");
    }
    const size_t colon = line.find(':');
    const std::string_view name = colon == std::string_view::npos ? line : line.substr(0, colon);
    if (colon == std::string_view::npos || !is_token(name)) {
      std::string msg = "malformed header line: '";
      msg.append(excerpt(line)).append("'");
      return fail(400, std::move(msg));
    }
    const std::string_view value = trim_ows(line.substr(colon + 1));
    if (!is_field_value(value)) {
      std::string msg = "header '";
      msg.append(name).append("' has a control character in its value");
      return fail(400, std::move(msg));
    }
    auto [it, inserted] = headers.try_emplace(std::string(name), std::string(value));
    if (!inserted) it->second.append(", ").append(value);
  }
  return apply_framing(std::move(head), max_body_bytes);
}

std::optional<std::map<std::string, std::string>> parse_query(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      auto key = percent_decode(pair.substr(0, eq), true);
      auto value =
          eq == std::string_view::npos ? std::optional<std::string>("") : percent_decode(pair.substr(eq + 1), true);
      if (!key || !value) return std::nullopt;
      out[std::move(*key)] = std::move(*value);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace keel::server
