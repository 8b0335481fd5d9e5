// mcp/http_endpoint_url.hpp — resolving the POST endpoint a legacy HTTP+SSE server announces.
//
// The `endpoint` event carries a URL or a path ("/messages?sessionId=abc"), relative to the event
// stream's URL. The result must stay on the stream's origin (scheme, host and port): a server
// must not be able to send the client's messages, and its credentials, somewhere else.
//
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::mcp::detail {

// The absolute URL of `reference` resolved against `stream_url`. kInvalidArgument when it cannot
// be parsed or leaves the stream's origin (the message names both URLs).
Result<std::string> resolve_endpoint_url(const std::string& stream_url, std::string_view reference);

}  // namespace keel::mcp::detail
