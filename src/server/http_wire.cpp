// Response serialization; see http_wire.hpp.
#include "server/http_wire.hpp"

#include <cstdio>

#include "server/http_request_parser.hpp"
#include "server/http_status.hpp"

namespace keel::server::detail {
namespace {

bool is_valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

bool is_safe_value(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

bool is_framing_header(std::string_view name) {
  return iequals(name, "content-length") || iequals(name, "transfer-encoding") || iequals(name, "connection");
}

}  // namespace

bool status_has_no_body(int status) {
  return (status >= 100 && status < 200) || status == 204 || status == 304;
}

std::string response_head(int status, const HttpHeaders& headers, BodyFraming framing, size_t content_length,
                          std::string_view connection) {
  std::string out;
  out.reserve(256);
  out.append("HTTP/1.1 ").append(std::to_string(status)).append(" ").append(reason_phrase(status)).append("\r\n");
  for (const auto& [name, value] : headers) {
    if (is_framing_header(name) || !is_valid_name(name) || !is_safe_value(value)) continue;
    out.append(name).append(": ").append(value).append("\r\n");
  }
  if (!status_has_no_body(status)) {
    if (framing == BodyFraming::kContentLength) {
      out.append("Content-Length: ").append(std::to_string(content_length)).append("\r\n");
    } else if (framing == BodyFraming::kChunked) {
      out.append("Transfer-Encoding: chunked\r\n");
    }
  }
  if (!connection.empty()) out.append("Connection: ").append(connection).append("\r\n");
  out.append("\r\n");
  return out;
}

bool asks_to_close(const HttpHeaders& headers) {
  for (const auto& [name, value] : headers) {
    if (iequals(name, "connection") && iequals(value, "close")) return true;
  }
  return false;
}

std::string chunk_frame(std::string_view data) {
  char size[24];
  const int n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
  std::string out;
  out.reserve(static_cast<size_t>(n) + data.size() + 2);
  out.append(size, static_cast<size_t>(n)).append(data).append("\r\n");
  return out;
}

}  // namespace keel::server::detail
