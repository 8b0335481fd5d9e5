// Endpoint resolution with libcurl's URL parser; see http_endpoint_url.hpp.
#include "mcp/http_endpoint_url.hpp"

#include "net/curl_library.hpp"

#include <memory>
#include <optional>

#include "mcp/http_exchange.hpp"

namespace keel::mcp::detail {
namespace {

struct UrlFree {
  void operator()(CURLU* u) const { keel::detail::curl().curl_url_cleanup(u); }
};
using Url = std::unique_ptr<CURLU, UrlFree>;

// One part of a parsed URL, lowercased (scheme and host compare without case); the port is
// filled in from the scheme when absent.
std::optional<std::string> part(CURLU* url, CURLUPart which) {
  char* value = nullptr;
  const unsigned flags = which == CURLUPART_PORT ? CURLU_DEFAULT_PORT : 0;
  if (keel::detail::curl().curl_url_get(url, which, &value, flags) != CURLUE_OK || value == nullptr) return std::nullopt;
  std::string out(value);
  keel::detail::curl().curl_free(value);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

Result<std::string> resolve_endpoint_url(const std::string& stream_url, std::string_view reference) {
  auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument(cat("the MCP server at ", stream_url, " announced the message endpoint '",
                                       excerpt(reference), "', which ", why));
  };
  if (reference.empty() || reference.find_first_of("\r\n\t ") != std::string_view::npos) {
    return invalid("is not a URL");
  }
  const Url base(keel::detail::curl().curl_url());
  if (base == nullptr) return Status::Internal("libcurl could not allocate a URL (out of memory?)");
  if (keel::detail::curl().curl_url_set(base.get(), CURLUPART_URL, stream_url.c_str(), 0) != CURLUE_OK) {
    return Status::InvalidArgument(cat("the MCP server URL '", excerpt(stream_url), "' cannot be parsed"));
  }
  const Url resolved(keel::detail::curl().curl_url_dup(base.get()));
  if (resolved == nullptr) return Status::Internal("libcurl could not allocate a URL (out of memory?)");
  // With a URL already set, a relative reference is resolved against it.
  if (keel::detail::curl().curl_url_set(resolved.get(), CURLUPART_URL, std::string(reference).c_str(), 0) != CURLUE_OK) {
    return invalid("cannot be parsed as a URL");
  }
  for (CURLUPart which : {CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT}) {
    const std::optional<std::string> a = part(base.get(), which);
    const std::optional<std::string> b = part(resolved.get(), which);
    if (!a || !b || *a != *b) return invalid("is on another origin; refusing to send messages there");
  }
  char* text = nullptr;
  if (keel::detail::curl().curl_url_get(resolved.get(), CURLUPART_URL, &text, 0) != CURLUE_OK || text == nullptr) {
    return invalid("cannot be parsed as a URL");
  }
  std::string out(text);
  keel::detail::curl().curl_free(text);
  return out;
}

}  // namespace keel::mcp::detail
