// Accept and version checks of the MCP HTTP endpoint; see mcp_http_guard.hpp.
#include "mcp_server/mcp_http_guard.hpp"

#include "core/text/base64.hpp"
#include "core/text/text_util.hpp"
#include "mcp_server/jsonrpc_reply.hpp"
#include "mcp_server/request_meta.hpp"

#include <algorithm>
#include <cstddef>

namespace keel::mcp::detail {
namespace {

using keel::detail::lowercase;
using keel::detail::trim;

}  // namespace

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

namespace {

// A header value as the body would say it: the `=?base64?...?=` form decoded; nullopt when the
// value has characters a header field may not carry or the Base64 is broken.
std::optional<std::string> header_text(std::string_view value) {
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u > 0x7e) return std::nullopt;
  }
  constexpr std::string_view kOpen = "=?base64?";
  constexpr std::string_view kClose = "?=";
  if (value.size() >= kOpen.size() + kClose.size() && value.substr(0, kOpen.size()) == kOpen &&
      value.substr(value.size() - kClose.size()) == kClose) {
    return keel::detail::base64_decode(value.substr(kOpen.size(), value.size() - kOpen.size() - kClose.size()));
  }
  return std::string(value);
}

}  // namespace

std::string mirrored_header_mismatch(const std::string& method, const nlohmann::json& params,
                                     const MirroredHeaders& headers) {
  if (!headers.method) return "the Mcp-Method header is missing; MCP 2026-07-28 requires it on every request";
  if (*headers.method != method) {
    return "the Mcp-Method header ('" + *headers.method + "') does not match the body's method ('" + method + "')";
  }
  const char* field = method == "tools/call" || method == "prompts/get" ? "name" : method == "resources/read" ? "uri" : nullptr;
  if (field == nullptr || !params.is_object() || !params.contains(field) || !params[field].is_string()) return "";
  const std::string body = params[field].get<std::string>();
  if (!headers.name) return "the Mcp-Name header is missing; " + method + " requires it (params." + field + ")";
  std::optional<std::string> named = header_text(*headers.name);
  if (!named) return "the Mcp-Name header has characters a header may not carry, or broken =?base64?...?= encoding";
  if (*named != body) {
    return "the Mcp-Name header ('" + *named + "') does not match the body's params." + field + " ('" + body + "')";
  }
  return "";
}

bool is_stateless_request(const nlohmann::json& message, bool has_version, std::string_view version) {
  const nlohmann::json params = message.is_object() ? message.value("params", nlohmann::json()) : nlohmann::json();
  const bool versioned_meta = stateless_meta(params) != nullptr;
  if (has_version && is_handshake_protocol_version(version) && !versioned_meta) return false;
  return has_version || versioned_meta;
}

int stateless_status(const nlohmann::json& response) {
  if (!response.contains("error")) return 200;
  const int code = response["error"].value("code", 0);
  if (code == kRpcMethodNotFound) return 404;
  if (code == kRpcHeaderMismatch || code == kRpcMissingClientCapability || code == kRpcUnsupportedVersion) return 400;
  return 200;
}

}  // namespace keel::mcp::detail
